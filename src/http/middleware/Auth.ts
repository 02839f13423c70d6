import { HttpApiSchema } from "@effect/platform"
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Schema } from "effect"
import type { SettingsShape } from "../../config/Settings.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { CurrentUserShape } from "../../domain/user/CurrentUser.ts"
import { applicationName } from "../../domain/user/User.ts"
import { type HttpRequestShape, noHeaders } from "../Http.ts"
import type { BadRequest } from "../../domain/RequestErrors.ts"
import { cameOverHttps, readSessionCookie, sessionCookie } from "./SessionCookie.ts"

// src/http/review still imports the caller from here; the rest of the code imports src/domain/user/CurrentUser.ts.
export { CurrentUser } from "../../domain/user/CurrentUser.ts"

/** Missing or wrong credentials; answered 401 with `WWW-Authenticate: Basic realm="datashare"`. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

/** Too many failed password checks for a login or from an address: 429 with `Retry-After`, without checking. */
export class TooManyAttempts extends Schema.TaggedError<TooManyAttempts>()(
  "TooManyAttempts",
  { message: Schema.String, retryAfterSeconds: Schema.Number },
  HttpApiSchema.annotations({ status: 429 })
) {}

export interface Authentication {
  /** Undefined when the request carries no credentials (allowed only on public routes). */
  readonly user: CurrentUserShape | undefined
  /** Headers the response must carry (a new session cookie). */
  readonly headers: Readonly<Record<string, string>>
}

export interface AuthenticatorShape {
  readonly authenticate: (
    request: HttpRequestShape,
    isPublic: boolean
  ) => Effect.Effect<Authentication, Unauthorized | TooManyAttempts | BadRequest | SqlError.SqlError>
}

/** Checks credentials; one implementation per mode (LOCAL here, SERVER in ServerAuth.ts). */
export class Authenticator extends Context.Tag("quarry/Authenticator")<Authenticator, AuthenticatorShape>() {}

/** A caller with no credentials on a public route: no projects, no rights. */
export const anonymousUser: CurrentUserShape = {
  user: { id: "", name: null, email: null, provider: "local", details: {} },
  isAdmin: false,
  grantedProjects: Effect.succeed([])
}

/** LOCAL mode's only user: `defaultUserName`, an administrator granted `defaultProject` and every stored project. */
const localCurrentUser = (settings: SettingsShape, sql: SqlClient.SqlClient): CurrentUserShape => {
  const login = settings.defaultUserName
  const details = { uid: login, groups_by_applications: { [applicationName]: [settings.defaultProject] } }
  return {
    user: { id: login, name: null, email: null, provider: "local", details },
    isAdmin: true,
    grantedProjects: sql<{ id: string }>`SELECT id FROM projects ORDER BY id`.pipe(
      Effect.map((rows) => [settings.defaultProject, ...rows.map((row) => row.id).filter((id) => id !== settings.defaultProject)]),
      dieOnSqlError
    )
  }
}

/**
 * LOCAL mode: every request is the `defaultUserName` user, who may use `defaultProject` and every project in the
 * database. A request without a valid session cookie gets one, so that front ends can read the login from it.
 */
export const makeLocalAuthenticator = (settings: SettingsShape) =>
  Effect.gen(function* () {
    const localUser = localCurrentUser(settings, yield* SqlClient.SqlClient)
    const login = settings.defaultUserName
    const withSession: Authentication = { user: localUser, headers: noHeaders }
    return Authenticator.of({
      authenticate: (request) =>
        Effect.succeed(
          readSessionCookie(request.headers.cookie) === undefined
            ? { user: localUser, headers: { "Set-Cookie": sessionCookie(login, [login], { secure: cameOverHttps(request.raw) }) } }
            : withSession
        )
    })
  })
