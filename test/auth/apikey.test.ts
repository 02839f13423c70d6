import { createHash } from "node:crypto"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, bodyText, request, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

const sha384 = (text: string) => createHash("sha384").update(text).digest("hex")
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const putKey = (userId: string, authorization: string) =>
  Effect.gen(function* () {
    const response = yield* request(`/api/key/${userId}`, { method: "PUT", headers: { authorization } })
    expect(response.status).toBe(201)
    const body = (yield* bodyJson(response)) as { apiKey: string }
    expect(Object.keys(body)).toEqual(["apiKey"])
    expect(body.apiKey).toMatch(/^[A-Za-z0-9+/]{43}=$/)
    return body.apiKey
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`API keys in SERVER mode on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("creates, shows the hash of, replaces and deletes a key that authenticates in between", () =>
        Effect.gen(function* () {
          yield* addUser("gus", "pw")
          const key = yield* putKey("gus", basic("gus", "pw"))
          const withKey = yield* request("/api/status", { headers: bearer(key) })
          expect(withKey.status).toBe(200)
          expect(withKey.headers.get("cache-control")).toBe("must-revalidate")
          expect(withKey.headers.get("set-cookie")).toBeNull()
          const hash = yield* request("/api/key/gus", { headers: bearer(key) })
          expect(hash.status).toBe(200)
          expect(yield* bodyJson(hash)).toEqual({ hashedKey: sha384(key) })
          const replacement = yield* putKey("gus", `Bearer ${key}`)
          expect(replacement).not.toBe(key)
          expect((yield* request("/api/status", { headers: bearer(key) })).status).toBe(401)
          const deleted = yield* request("/api/key/gus", { method: "DELETE", headers: bearer(replacement) })
          expect(deleted.status).toBe(204)
          expect(yield* bodyText(deleted)).toBe("")
          const refused = yield* request("/api/status", { headers: bearer(replacement) })
          expect(refused.status).toBe(401)
          expect(refused.headers.get("www-authenticate")).toBe('Basic realm="datashare"')
          const none = yield* request("/api/key/gus", { headers: { authorization: basic("gus", "pw") } })
          expect(none.status).toBe(404)
          expect(yield* bodyJson(none)).toEqual({ error: "user gus has no API key" })
        })
      )

      it.effect("forbids managing another user's key", () =>
        Effect.gen(function* () {
          yield* addUser("hal", "pw")
          yield* addUser("ivy", "pw")
          const ivyKey = yield* putKey("ivy", basic("ivy", "pw"))
          for (const method of ["PUT", "GET", "DELETE"]) {
            const response = yield* request("/api/key/ivy", { method, headers: { authorization: basic("hal", "pw") } })
            expect(response.status).toBe(403)
            expect(yield* bodyJson(response)).toEqual({ error: "you may only manage your own API key" })
          }
          // Ivy's key is untouched by the refused calls, and it cannot be used on Hal's key either.
          expect((yield* request("/api/key/hal", { headers: bearer(ivyKey) })).status).toBe(403)
          expect((yield* request("/api/key/ivy", { headers: bearer(ivyKey) })).status).toBe(200)
        })
      )

      it.effect("lets an admin manage other users' keys", () =>
        Effect.gen(function* () {
          yield* addUser("root", "pw", { admin: true })
          yield* addUser("jay", "pw")
          const admin = basic("root", "pw")
          const jayKey = yield* putKey("jay", admin)
          // The key is Jay's: it reads Jay's hash but not the admin's.
          expect(yield* bodyJson(yield* request("/api/key/jay", { headers: bearer(jayKey) }))).toEqual({ hashedKey: sha384(jayKey) })
          expect((yield* request("/api/key/root", { headers: bearer(jayKey) })).status).toBe(403)
          expect(yield* bodyJson(yield* request("/api/key/jay", { headers: { authorization: admin } }))).toEqual({
            hashedKey: sha384(jayKey)
          })
          expect((yield* request("/api/key/jay", { method: "DELETE", headers: { authorization: admin } })).status).toBe(204)
          expect((yield* request("/api/status", { headers: bearer(jayKey) })).status).toBe(401)
          const ghost = yield* request("/api/key/ghost", { method: "PUT", headers: { authorization: admin } })
          expect(ghost.status).toBe(404)
        })
      )

      it.effect("answers the preflight with the allowed methods", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/key/anyone", { method: "OPTIONS" })
          expect(response.status).toBe(200)
          expect(response.headers.get("access-control-allow-methods")).toBe("OPTIONS, GET, PUT, DELETE")
        })
      )
    })
  })
}

describe("API keys in LOCAL mode", () => {
  layer(testServerLayer({ database: "pglite" }))((it) => {
    it.effect("do not exist: every method answers 404", () =>
      Effect.gen(function* () {
        for (const method of ["OPTIONS", "PUT", "GET", "DELETE"]) {
          const response = yield* request("/api/key/local", { method })
          expect(response.status).toBe(404)
          expect(yield* bodyJson(response)).toEqual({ error: "API keys exist only in SERVER mode" })
        }
      })
    )
  })
})
