import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic, cookiePair, sessionCookieOf } from "../helpers/users.ts"

const status = (headers: Record<string, string> = {}) => request("/api/status", { headers })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`SERVER-mode authentication on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER", sessionTtlSeconds: "600" } }))((it) => {
      it.effect("answers 401 with a Basic challenge when /api/... has no credentials", () =>
        Effect.gen(function* () {
          const response = yield* status()
          expect(response.status).toBe(401)
          expect(response.headers.get("www-authenticate")).toBe('Basic realm="datashare"')
          expect(yield* bodyJson(response)).toEqual({ error: expect.any(String) })
          expect(response.headers.get("set-cookie")).toBeNull()
        })
      )

      it.effect("refuses a wrong password and an unknown login with 401", () =>
        Effect.gen(function* () {
          yield* addUser("carol", "right password")
          const wrong = yield* status({ authorization: basic("carol", "wrong password") })
          expect(wrong.status).toBe(401)
          expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="datashare"')
          expect(wrong.headers.get("set-cookie")).toBeNull()
          expect((yield* status({ authorization: basic("nobody", "right password") })).status).toBe(401)
        })
      )

      it.effect("accepts good Basic credentials without opening a session; the form's session cookie then works alone", () =>
        Effect.gen(function* () {
          yield* addUser("dave", "s3cret:with colon", { projects: ["p1"] })
          const first = yield* status({ authorization: basic("dave", "s3cret:with colon") })
          expect(first.status).toBe(200)
          expect(first.headers.get("set-cookie")).toBeNull()
          const form = new URLSearchParams({ login: "dave", password: "s3cret:with colon" })
          const setCookie = (yield* request("/auth/signin", { method: "POST", body: form, redirect: "manual" })).headers.get("set-cookie")
          expect(setCookie).toMatch(/^_ds_session_id=\{.*\}; Version=1; Path=\/; HttpOnly; SameSite=Lax; Expires=.*; Max-Age=600$/)
          const value: unknown = JSON.parse(cookiePair(setCookie).slice("_ds_session_id=".length))
          expect(value).toEqual({ login: "dave", roles: [], sessionId: expect.stringMatching(/^[0-9a-f]{32}$/), redirectAfterLogin: "/" })
          const again = yield* status({ cookie: cookiePair(setCookie) })
          expect(again.status).toBe(200)
          expect(again.headers.get("set-cookie")).toBeNull()
        })
      )

      it.effect("refuses a cookie whose session is unknown or expired", () =>
        Effect.gen(function* () {
          yield* addUser("erin", "pw")
          const forged = `_ds_session_id=${JSON.stringify({ login: "erin", roles: [], sessionId: "0".repeat(32), redirectAfterLogin: "/" })}`
          expect((yield* status({ cookie: forged })).status).toBe(401)
          const cookie = yield* sessionCookieOf("erin", "pw")
          const server = yield* TestServer
          yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_login = 'erin'`
          ).pipe(Effect.provide(server.context))
          expect((yield* status({ cookie })).status).toBe(401)
        })
      )

      it.effect("answers 400 to a Basic header without ':' and 401 to an unknown scheme", () =>
        Effect.gen(function* () {
          const malformed = yield* status({ authorization: `Basic ${Buffer.from("no-colon-here").toString("base64")}` })
          expect(malformed.status).toBe(400)
          expect(yield* bodyJson(malformed)).toEqual({ error: "malformed Basic credentials" })
          expect((yield* status({ authorization: "Digest username=x" })).status).toBe(401)
        })
      )

      it.effect("lets public routes through without credentials", () =>
        Effect.gen(function* () {
          const response = yield* request("/auth/signout", { redirect: "manual" })
          expect(response.status).toBe(303)
          expect(response.headers.get("location")).toBe("/?signout")
        })
      )

      it.effect("signs in with a form, then signs out and the session stops working", () =>
        Effect.gen(function* () {
          yield* addUser("fay", "form pw", { admin: true })
          const form = { "content-type": "application/x-www-form-urlencoded" }
          const bad = yield* request("/auth/signin", { method: "POST", headers: form, body: "login=fay&password=nope", redirect: "manual" })
          expect(bad.status).toBe(401)
          expect(bad.headers.get("set-cookie")).toBeNull()
          const good = yield* request("/auth/signin", {
            method: "POST",
            headers: form,
            body: new URLSearchParams({ login: "fay", password: "form pw" }).toString(),
            redirect: "manual"
          })
          expect(good.status).toBe(303)
          expect(good.headers.get("location")).toBe("/")
          const cookie = cookiePair(good.headers.get("set-cookie"))
          expect(JSON.parse(cookie.slice("_ds_session_id=".length))).toMatchObject({ login: "fay", roles: ["admin"] })
          expect((yield* status({ cookie })).status).toBe(200)
          const out = yield* request("/auth/signout", { headers: { cookie }, redirect: "manual" })
          expect(out.status).toBe(303)
          expect(out.headers.get("location")).toBe("/?signout")
          expect(out.headers.get("set-cookie")).toMatch(/^_ds_session_id=; .*Max-Age=0$/)
          expect((yield* status({ cookie })).status).toBe(401)
        })
      )
    })
  })
}
