import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { request, testServerLayer } from "../helpers/server.ts"
import { basic, cookiePair } from "../helpers/users.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`LOCAL-mode authentication on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { defaultUserName: "alice" } }))((it) => {
      it.effect("serves /api/... without credentials as the local user and sets the session cookie", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/status")
          expect(response.status).toBe(200)
          const setCookie = response.headers.get("set-cookie")
          expect(setCookie).toMatch(/^_ds_session_id=\{.*\}; Version=1; Path=\/; HttpOnly; SameSite=Lax; Expires=.*; Max-Age=2147483647$/)
          const value: unknown = JSON.parse(cookiePair(setCookie).slice("_ds_session_id=".length))
          expect(value).toEqual({
            login: "alice",
            roles: ["alice"],
            sessionId: expect.stringMatching(/^[0-9a-f]{1,32}$/),
            redirectAfterLogin: "/"
          })
        })
      )

      it.effect("does not set the cookie again when the request carries it", () =>
        Effect.gen(function* () {
          const first = yield* request("/api/status")
          const again = yield* request("/api/status", { headers: { cookie: cookiePair(first.headers.get("set-cookie")) } })
          expect(again.status).toBe(200)
          expect(again.headers.get("set-cookie")).toBeNull()
        })
      )

      it.effect("ignores credentials: a wrong Basic password or a bogus key still gets the local user", () =>
        Effect.gen(function* () {
          expect((yield* request("/api/status", { headers: { authorization: basic("mallory", "wrong") } })).status).toBe(200)
          expect((yield* request("/api/status", { headers: { authorization: "Bearer nope" } })).status).toBe(200)
        })
      )

      it.effect("signs in and out by redirecting, like the reference", () =>
        Effect.gen(function* () {
          const signIn = yield* request("/auth/signin", { method: "POST", body: "login=x&password=y", redirect: "manual" })
          expect(signIn.status).toBe(303)
          expect(signIn.headers.get("location")).toBe("/")
          expect(JSON.parse(cookiePair(signIn.headers.get("set-cookie")).slice("_ds_session_id=".length))).toMatchObject({ login: "alice" })
          const signOut = yield* request("/auth/signout", { redirect: "manual" })
          expect(signOut.status).toBe(303)
          expect(signOut.headers.get("location")).toBe("/?signout")
          expect(signOut.headers.get("set-cookie")).toMatch(/Max-Age=0$/)
        })
      )
    })
  })
}
