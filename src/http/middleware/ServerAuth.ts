import { Effect, Option, Redacted } from "effect"
import type { SettingsShape } from "../../config/Settings.ts"
import { isAdmin, projectsInDetails, type StoredUser, toLegacyUser } from "../../domain/user/User.ts"
import { Users } from "../../domain/user/Users.ts"
import { nulRefusal } from "../../db/Nul.ts"
import { type HttpRequestShape, noHeaders } from "../../transport/Http.ts"
import { BadRequest } from "../../domain/RequestErrors.ts"
import { type Authentication, Authenticator, Unauthorized } from "../../transport/Authentication.ts"
import { type CurrentUserShape } from "../../domain/user/CurrentUser.ts"
import { readSessionCookie } from "./SessionCookie.ts"
import { SignInThrottle } from "./SignInThrottle.ts"

/** The caller as handlers see it: projects from `details.groups_by_applications.datashare`, admin from roles. */
export const currentUserOf = (user: StoredUser): CurrentUserShape => ({
  user: toLegacyUser(user),
  isAdmin: isAdmin(user),
  grantedProjects: Effect.succeed(projectsInDetails(user.details))
})

type BasicCredentials = { readonly login: string; readonly password: Redacted.Redacted<string> }

/** `Basic <base64 login:password>`; undefined when there is no ':' (a malformed header answers 400). */
export const parseBasic = (encoded: string): BasicCredentials | undefined => {
  const decoded = Buffer.from(encoded.trim(), "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? undefined : { login: decoded.slice(0, colon), password: Redacted.make(decoded.slice(colon + 1)) }
}

const noCredentials = { user: undefined, headers: noHeaders } satisfies Authentication

/**
 * SERVER mode. Credentials are tried in order: a live session cookie, `Authorization: Bearer <api key>`, HTTP
 * Basic against the users table. Paths under `protectedUriPrefix` (except public routes) need one of them; other
 * paths pass without, but still see the user when credentials are present. Basic opens no session (clients that use
 * it send it with every request; browsers sign in with the form): a right password is remembered for a minute, and
 * failures are throttled per login and per address.
 */
export const makeServerAuthenticator = (settings: SettingsShape) =>
  Effect.gen(function* () {
    const users = yield* Users
    const throttle = yield* SignInThrottle

    const fromAuthorization = (request: HttpRequestShape, header: string, required: boolean) =>
      Effect.gen(function* () {
        const refuse = (message: string) => (required ? Effect.fail(new Unauthorized({ message })) : Effect.succeed(noCredentials))
        const [scheme = "", value = ""] = header.split(/\s+(.*)/s)
        switch (scheme.toLowerCase()) {
          case "bearer": {
            if (value.includes("\0")) return yield* new BadRequest({ message: nulRefusal })
            const owner = yield* users.userByApiKey(Redacted.make(value.trim()))
            if (Option.isNone(owner)) return yield* refuse("invalid API key")
            // The reference marks key-authenticated answers so that caches revalidate them.
            return { user: currentUserOf(owner.value), headers: { "Cache-Control": "must-revalidate" } }
          }
          case "basic": {
            const credentials = parseBasic(value)
            if (credentials === undefined) {
              return yield* required
                ? Effect.fail(new BadRequest({ message: "malformed Basic credentials" }))
                : Effect.succeed(noCredentials)
            }
            // No login or password holds a NUL, and the database cannot compare one.
            if (credentials.login.includes("\0") || Redacted.value(credentials.password).includes("\0"))
              return yield* new BadRequest({ message: nulRefusal })
            const user = yield* throttle.checkPassword(credentials.login, credentials.password, request.remoteAddress)
            if (Option.isNone(user)) return yield* refuse("wrong login or password")
            return { user: currentUserOf(user.value), headers: noHeaders }
          }
          default:
            return yield* refuse(`unsupported authorization scheme ${scheme}`)
        }
      })

    const authenticate = (request: HttpRequestShape, isPublic: boolean) =>
      Effect.gen(function* () {
        const required = !isPublic && request.path.startsWith(settings.protectedUriPrefix)
        const cookie = readSessionCookie(request.headers.cookie)
        // A session id is hex: one holding a NUL is forged, and the database cannot compare it.
        if (cookie !== undefined && cookie.sessionId.includes("\0")) return yield* new BadRequest({ message: nulRefusal })
        if (cookie !== undefined) {
          const user = yield* users.sessionUser(cookie.sessionId)
          if (Option.isSome(user)) return { user: currentUserOf(user.value), headers: noHeaders } satisfies Authentication
        }
        const header = request.headers.authorization
        if (header !== undefined) return yield* fromAuthorization(request, header, required)
        if (required) return yield* new Unauthorized({ message: "authentication required" })
        return noCredentials
      })

    return Authenticator.of({ authenticate })
  })
