import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { SettingsShape } from "../../config/Settings.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { CurrentUserShape } from "../../domain/user/CurrentUser.ts"
import { applicationName } from "../../domain/user/User.ts"
import { type Authentication, Authenticator } from "../../transport/Authentication.ts"
import { noHeaders } from "../../transport/Http.ts"
import { cameOverHttps, readSessionCookie, sessionCookie } from "./SessionCookie.ts"

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
