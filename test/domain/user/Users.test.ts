import { createHash } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { resolveSettings } from "../../../src/config/Settings.ts"
import { Users } from "../../../src/domain/user/Users.ts"
import { migratedDatabase, usersLayer } from "../../../src/SharedLayers.ts"
import { databaseKinds, dataSourceUrlFor, postgresAvailable, postgresSkipReason, type DatabaseKind } from "../../helpers/databases.ts"

const usersOn = (database: DatabaseKind) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const dataSourceUrl = yield* dataSourceUrlFor(database)
      const settings = yield* resolveSettings({
        env: {},
        cli: { dataSourceUrl },
        defaultSettingsFile: path.join(os.tmpdir(), "quarry-no-such-settings.properties")
      })
      return usersLayer.pipe(Layer.provideMerge(migratedDatabase(settings)))
    })
  ).pipe(Layer.orDie)

const secret = Redacted.make
const sha384 = (text: string) => createHash("sha384").update(text).digest("hex")

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Users on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(usersOn(database))((it) => {
      it.effect("adds a user, then updates it in place with exactly the new attributes", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const first = yield* users.add({
            login: "ada",
            password: secret("pw1"),
            email: "ada@example.org",
            projects: ["p1", "p2"],
            admin: true
          })
          expect(first.created).toBe(true)
          expect(yield* users.get("ada")).toEqual({
            login: "ada",
            name: null,
            email: "ada@example.org",
            provider: "local",
            details: { uid: "ada", groups_by_applications: { datashare: ["p1", "p2"] } },
            roles: ["admin"]
          })
          const second = yield* users.add({ login: "ada", password: secret("pw2"), name: "Ada L", projects: ["p3"] })
          expect(second.created).toBe(false)
          const updated = yield* users.get("ada")
          expect(updated).toMatchObject({
            name: "Ada L",
            email: null,
            roles: [],
            details: { groups_by_applications: { datashare: ["p3"] } }
          })
          expect(Option.isNone(yield* users.checkPassword("ada", secret("pw1")))).toBe(true)
          expect(Option.isSome(yield* users.checkPassword("ada", secret("pw2")))).toBe(true)
        })
      )

      it.effect("stores salted scrypt hashes, never the password", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          yield* users.add({ login: "h1", password: secret("same password") })
          yield* users.add({ login: "h2", password: secret("same password") })
          const rows = yield* sql<{ hash: string }>`SELECT password_hash AS hash FROM users WHERE login IN ('h1', 'h2') ORDER BY login`
          for (const row of rows) expect(row.hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/)
          expect(rows[0]!.hash).not.toBe(rows[1]!.hash)
          expect(rows.some((row) => row.hash.includes("same password"))).toBe(false)
        })
      )

      it.effect("refuses a wrong password, an unknown login and a user without password", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          yield* users.add({ login: "grace", password: secret("right") })
          yield* sql`INSERT INTO users (login) VALUES ('nopassword')`
          expect(Option.map(yield* users.checkPassword("grace", secret("right")), (u) => u.login)).toEqual(Option.some("grace"))
          expect(Option.isNone(yield* users.checkPassword("grace", secret("wrong")))).toBe(true)
          expect(Option.isNone(yield* users.checkPassword("nobody", secret("right")))).toBe(true)
          expect(Option.isNone(yield* users.checkPassword("nopassword", secret("")))).toBe(true)
          // Damaged or hostile stored hashes refuse the sign-in instead of failing or allocating gigabytes.
          for (const hash of ["garbage", "scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAA"]) {
            yield* sql`UPDATE users SET password_hash = ${hash} WHERE login = 'grace'`
            expect(Option.isNone(yield* users.checkPassword("grace", secret("right")))).toBe(true)
          }
        })
      )

      it.effect("rejects logins that could not sign in and empty passwords", () =>
        Effect.gen(function* () {
          const users = yield* Users
          for (const login of ["", "a:b", "with space", "x".repeat(97)]) {
            const exit = yield* Effect.exit(users.add({ login, password: secret("pw") }))
            expect(exit).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "InvalidUser" } } })
          }
          const empty = yield* Effect.exit(users.add({ login: "ok", password: secret("") }))
          expect(empty).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "InvalidUser" } } })
        })
      )

      it.effect("lists users by login and removes them with their key and sessions", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          yield* users.add({ login: "zed", password: secret("pw") })
          yield* users.add({ login: "amy", password: secret("pw") })
          const logins = (yield* users.list()).map((user) => user.login)
          expect(logins.indexOf("amy")).toBeLessThan(logins.indexOf("zed"))
          const key = yield* users.createApiKey("zed")
          const sessionId = yield* users.openSession("zed", 600)
          yield* users.remove("zed")
          expect((yield* users.list()).map((user) => user.login)).not.toContain("zed")
          expect(Option.isNone(yield* users.userByApiKey(key))).toBe(true)
          expect(Option.isNone(yield* users.sessionUser(sessionId))).toBe(true)
          const leftovers = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE user_login = 'zed'`
          expect(leftovers[0]!.n).toBe(0)
          const again = yield* Effect.exit(users.remove("zed"))
          expect(again).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "UserNotFound", login: "zed" } } })
        })
      )

      it.effect("finds a session until it expires or is closed", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          yield* users.add({ login: "sam", password: secret("pw") })
          const sessionId = yield* users.openSession("sam", 600)
          expect(sessionId).toMatch(/^[0-9a-f]{32}$/)
          expect(Option.map(yield* users.sessionUser(sessionId), (u) => u.login)).toEqual(Option.some("sam"))
          yield* sql`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = ${sessionId}`
          expect(Option.isNone(yield* users.sessionUser(sessionId))).toBe(true)
          const other = yield* users.openSession("sam", 600)
          // Opening a session purges the expired ones.
          expect((yield* sql`SELECT id FROM sessions WHERE id = ${sessionId}`).length).toBe(0)
          yield* users.closeSession(other)
          expect(Option.isNone(yield* users.sessionUser(other))).toBe(true)
        })
      )

      it.effect("hands out one Base64 256-bit API key per user and stores only its SHA-384", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sql = yield* SqlClient.SqlClient
          yield* users.add({ login: "kim", password: secret("pw") })
          const first = Redacted.value(yield* users.createApiKey("kim"))
          expect(first).toMatch(/^[A-Za-z0-9+/]{43}=$/)
          expect(Buffer.from(first, "base64")).toHaveLength(32)
          expect(yield* users.apiKeyHash("kim")).toBe(sha384(first))
          expect(Option.map(yield* users.userByApiKey(secret(first)), (u) => u.login)).toEqual(Option.some("kim"))
          const second = Redacted.value(yield* users.createApiKey("kim"))
          expect(second).not.toBe(first)
          expect(Option.isNone(yield* users.userByApiKey(secret(first)))).toBe(true)
          const stored = yield* sql<{ hashedKey: string }>`SELECT hashed_key AS "hashedKey" FROM api_keys WHERE user_login = 'kim'`
          expect(stored).toEqual([{ hashedKey: sha384(second) }])
          yield* users.deleteApiKey("kim")
          expect(Option.isNone(yield* users.userByApiKey(secret(second)))).toBe(true)
          const missing = yield* Effect.exit(users.apiKeyHash("kim"))
          expect(missing).toMatchObject({ _tag: "Failure", cause: { error: { _tag: "ApiKeyNotFound" } } })
          const unknown = yield* Effect.exit(users.createApiKey("ghost"))
          expect(Exit.isFailure(unknown) && unknown.cause).toMatchObject({ error: { _tag: "UserNotFound", login: "ghost" } })
        })
      )
    })
  })
}
