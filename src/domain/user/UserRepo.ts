import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import type { StoredUser } from "./User.ts"

/** A users row with its password hash (`scrypt$N$r$p$salt$hash`, or null when it cannot sign in). */
export interface UserRow extends StoredUser {
  readonly passwordHash: string | null
}

export interface UserWrite {
  readonly login: string
  readonly name: string | null
  readonly email: string | null
  readonly details: Readonly<Record<string, unknown>>
  readonly roles: ReadonlyArray<string>
  readonly passwordHash: string
}

/** SQL of the users, sessions and api_keys tables; rules and transactions are in Users. */
export class UserRepo extends Effect.Service<UserRepo>()("quarry/UserRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const userColumns = sql.literal(`u.login, u.name, u.email, u.provider, u.details, u.roles, u.password_hash AS "passwordHash"`)

    const upsert = Effect.fn("UserRepo.upsert")(function* (user: UserWrite) {
      // xmax is 0 only on a freshly inserted row: tells a creation from an update in one statement.
      const rows = yield* sql<{ created: boolean }>`
        INSERT INTO users (login, name, email, details, roles, password_hash)
        VALUES (${user.login}, ${user.name}, ${user.email}, ${JSON.stringify(user.details)}::jsonb,
                ${user.roles}::text[], ${user.passwordHash})
        ON CONFLICT (login) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email, details = EXCLUDED.details,
          roles = EXCLUDED.roles, password_hash = EXCLUDED.password_hash
        RETURNING (xmax = 0) AS created`
      return rows[0]?.created === true
    })

    const findByLogin = Effect.fn("UserRepo.findByLogin")(function* (login: string) {
      return Arr.head(yield* sql<UserRow>`SELECT ${userColumns} FROM users u WHERE u.login = ${login}`)
    })

    const list = Effect.fn("UserRepo.list")(function* () {
      return yield* sql<UserRow>`SELECT ${userColumns} FROM users u ORDER BY u.login`
    })

    /** Deletes the user (sessions cascade); true when a row was deleted. */
    const remove = Effect.fn("UserRepo.remove")(function* (login: string) {
      const rows = yield* sql<{ login: string }>`DELETE FROM users WHERE login = ${login} RETURNING login`
      return rows.length > 0
    })

    /** Also purges expired sessions, so that clients sending Basic on every request do not pile rows up. */
    const createSession = Effect.fn("UserRepo.createSession")(function* (id: string, login: string, ttlSeconds: number) {
      yield* sql`
        WITH purged AS (DELETE FROM sessions WHERE expires_at < now())
        INSERT INTO sessions (id, user_login, expires_at)
        VALUES (${id}, ${login}, now() + make_interval(secs => ${ttlSeconds}))`
    })

    const findSessionUser = Effect.fn("UserRepo.findSessionUser")(function* (sessionId: string) {
      return Arr.head(
        yield* sql<UserRow>`
          SELECT ${userColumns} FROM sessions s JOIN users u ON u.login = s.user_login
          WHERE s.id = ${sessionId} AND s.expires_at > now()`
      )
    })

    const deleteSession = Effect.fn("UserRepo.deleteSession")(function* (sessionId: string) {
      yield* sql`DELETE FROM sessions WHERE id = ${sessionId}`
    })

    /** One key per user: a new key replaces the previous one. */
    const upsertApiKey = Effect.fn("UserRepo.upsertApiKey")(function* (login: string, hashedKey: string) {
      yield* sql`
        INSERT INTO api_keys (hashed_key, user_login) VALUES (${hashedKey}, ${login})
        ON CONFLICT (user_login) DO UPDATE SET hashed_key = EXCLUDED.hashed_key, creation_date = now()`
    })

    const findByApiKeyHash = Effect.fn("UserRepo.findByApiKeyHash")(function* (hashedKey: string) {
      return Arr.head(
        yield* sql<UserRow>`
          SELECT ${userColumns} FROM api_keys k JOIN users u ON u.login = k.user_login WHERE k.hashed_key = ${hashedKey}`
      )
    })

    const apiKeyHashOf = Effect.fn("UserRepo.apiKeyHashOf")(function* (login: string) {
      const rows = yield* sql<{ hashedKey: string }>`SELECT hashed_key AS "hashedKey" FROM api_keys WHERE user_login = ${login}`
      return Option.map(Arr.head(rows), (row) => row.hashedKey)
    })

    const deleteApiKey = Effect.fn("UserRepo.deleteApiKey")(function* (login: string) {
      yield* sql`DELETE FROM api_keys WHERE user_login = ${login}`
    })

    return dieOnSqlErrors({
      upsert,
      findByLogin,
      list,
      remove,
      createSession,
      findSessionUser,
      deleteSession,
      upsertApiKey,
      findByApiKeyHash,
      apiKeyHashOf,
      deleteApiKey
    })
  })
}) {}
