import { Effect, Redacted } from "effect"
import { Users } from "../../src/domain/user/Users.ts"
import { request, TestServer } from "./server.ts"

/** Runs an effect needing Users against the test server's own database. */
export const withUsers = <A, E>(use: (users: Users) => Effect.Effect<A, E>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(Effect.flatMap(Users, use), server.context))

/** Creates (or replaces) a user of the test server with a password. */
export const addUser = (
  login: string,
  password: string,
  options: { readonly projects?: ReadonlyArray<string>; readonly admin?: boolean } = {}
) =>
  withUsers((users) => users.add({ login, password: Redacted.make(password), projects: options.projects, admin: options.admin })).pipe(
    Effect.orDie
  )

/** The value of an `Authorization: Basic` header. */
export const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`

/** The `name=value` part of a Set-Cookie header, as a browser would send it back. */
export const cookiePair = (setCookie: string | null) => (setCookie === null ? "" : setCookie.split("; ")[0]!)

/** Signs in with the form (Basic opens no session) and returns the session cookie as a browser would send it back. */
export const sessionCookieOf = (login: string, password: string) =>
  Effect.map(request("/auth/signin", { method: "POST", body: new URLSearchParams({ login, password }), redirect: "manual" }), (response) =>
    cookiePair(response.headers.get("set-cookie"))
  )
