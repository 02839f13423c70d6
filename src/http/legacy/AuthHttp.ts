import { Effect, Option, Redacted } from "effect"
import { Settings } from "../../config/Settings.ts"
import { recordSignIn } from "../../domain/user/SignIns.ts"
import { Users } from "../../domain/user/Users.ts"
import { nulRefusal } from "../../db/Nul.ts"
import { empty, HttpRequest } from "../../transport/Http.ts"
import { BadRequest } from "../../domain/RequestErrors.ts"
import { Unauthorized } from "../../transport/Authentication.ts"
import { SignInThrottle } from "../middleware/SignInThrottle.ts"
import { cameOverHttps, expiredSessionCookie, readSessionCookie, sessionCookie } from "../middleware/SessionCookie.ts"
import { publicRoute } from "../Router.ts"

const seeOther = (location: string, cookie: string) => empty(303, { Location: location, "Set-Cookie": cookie })

/** Fields of an `application/x-www-form-urlencoded` body. */
const formFields = Effect.gen(function* () {
  const request = yield* HttpRequest
  return new URLSearchParams((yield* request.body).toString("utf8"))
})

const signIn = Effect.gen(function* () {
  const settings = yield* Settings
  const request = yield* HttpRequest
  if (settings.mode !== "SERVER") {
    // LOCAL mode has one user and no passwords, as in the reference: signing in just goes home.
    return seeOther("/", sessionCookie(settings.defaultUserName, [settings.defaultUserName], { secure: cameOverHttps(request.raw) }))
  }
  const form = yield* formFields
  const login = form.get("login") ?? ""
  const password = form.get("password") ?? ""
  // No stored login holds a NUL, and the database cannot compare one.
  if (login.includes("\0") || password.includes("\0")) return yield* new BadRequest({ message: nulRefusal })
  const users = yield* Users
  const user = yield* (yield* SignInThrottle).checkPassword(login, Redacted.make(password), request.remoteAddress)
  if (Option.isNone(user)) return yield* new Unauthorized({ message: "wrong login or password" })
  const sessionId = yield* users.openSession(user.value.login, settings.sessionTtlSeconds)
  yield* recordSignIn(user.value.login)
  return seeOther(
    "/",
    sessionCookie(user.value.login, user.value.roles, { sessionId, maxAge: settings.sessionTtlSeconds, secure: cameOverHttps(request.raw) })
  )
})

const signOut = Effect.gen(function* () {
  const request = yield* HttpRequest
  const settings = yield* Settings
  const cookie = readSessionCookie(request.headers.cookie)
  if (cookie !== undefined) yield* (yield* Users).closeSession(cookie.sessionId)
  // Back to the sign-in page: Quarry's page, which is at /login when webRoot serves another front end at /.
  return seeOther(settings.webRoot === undefined ? "/?signout" : "/login?signout", expiredSessionCookie(cameOverHttps(request.raw)))
})

/** Form sign-in and sign-out of browsers; public, since they are how a caller gets or drops credentials. */
export const authRoutes = [
  publicRoute("POST", "/auth/signin", signIn, {
    summary: "Signs in with the form fields login and password (urlencoded); 303 to / with the session cookie, 401 otherwise",
    tag: "auth",
    responseStatus: 303
  }),
  publicRoute("GET", "/auth/signout", signOut, {
    summary: "Ends the session and clears its cookie; 303 to /?signout (/login?signout when webRoot is set)",
    tag: "auth",
    responseStatus: 303
  })
]
