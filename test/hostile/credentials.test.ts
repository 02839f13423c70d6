import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

const form = { "content-type": "application/x-www-form-urlencoded" }
const signIn = (body: string, headers: Record<string, string> = {}) =>
  request("/auth/signin", { method: "POST", headers: { ...form, ...headers }, body, redirect: "manual" })
const nulAnswer = { error: "NUL characters are not supported" }

describe("Credentials holding a NUL, and the session cookie's attributes (SERVER mode)", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a NUL in a Basic login or password, a session cookie or the sign-in form answers 400", () =>
      Effect.gen(function* () {
        yield* addUser("erin", "erin password")
        for (const authorization of [basic("er\0in", "erin password"), basic("erin", "erin\0password")]) {
          const response = yield* request("/api/status", { headers: { authorization } })
          expect({ status: response.status, body: yield* bodyJson(response) }).toEqual({ status: 400, body: nulAnswer })
        }
        const cookie = `_ds_session_id=${JSON.stringify({ login: "erin", roles: [], sessionId: "ab\u0000cd", redirectAfterLogin: "/" })}`
        const withCookie = yield* request("/api/status", { headers: { cookie } })
        expect({ status: withCookie.status, body: yield* bodyJson(withCookie) }).toEqual({ status: 400, body: nulAnswer })
        for (const body of ["login=er%00in&password=erin%20password", "login=erin&password=erin%00password"]) {
          const response = yield* signIn(body)
          expect({ status: response.status, body: yield* bodyJson(response) }).toEqual({ status: 400, body: nulAnswer })
        }
        expect((yield* request("/api/status", { headers: { authorization: basic("erin", "erin password") } })).status).toBe(200)
      })
    )

    it.effect("the session cookie is HttpOnly and SameSite=Lax, and Secure when the request came over HTTPS", () =>
      Effect.gen(function* () {
        yield* addUser("fred", "fred password")
        const plain = (yield* signIn("login=fred&password=fred%20password")).headers.get("set-cookie") ?? ""
        expect(plain).toMatch(/^_ds_session_id=\{.*\}; Version=1; Path=\/; HttpOnly; SameSite=Lax; Expires=/)
        expect(plain).not.toMatch(/Secure/)
        const proxied =
          (yield* signIn("login=fred&password=fred%20password", { "x-forwarded-proto": "https" })).headers.get("set-cookie") ?? ""
        expect(proxied).toMatch(/; HttpOnly; SameSite=Lax; Secure; /)
        const signOut =
          (yield* request("/auth/signout", { redirect: "manual", headers: { "x-forwarded-proto": "https" } })).headers.get("set-cookie") ??
          ""
        expect(signOut).toMatch(/^_ds_session_id=; Version=1; Path=\/; HttpOnly; SameSite=Lax; Secure; Expires=Thu, 01 Jan 1970/)
      })
    )
  })
})

describe("The LOCAL session cookie", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("is HttpOnly and SameSite=Lax too", () =>
      Effect.gen(function* () {
        expect((yield* request("/api/status")).headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax; Expires=/)
      })
    )
  })
})
