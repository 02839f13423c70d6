import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { adminRole } from "../user/User.ts"

/** A caller of the review API: a row of `users`; staff are the users with the admin role. */
export interface ReviewUser {
  readonly id: number
  readonly login: string
  readonly isStaff: boolean
}

/**
 * The users row of a login. LOCAL mode's single user has no row until it first uses the review API, so it is
 * created then (as staff, matching its rights everywhere else); in SERVER mode an unknown login is undefined.
 */
export const findReviewUser = (login: string, createLocal: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: number; isStaff: boolean }>`
      SELECT id, ${adminRole} = ANY(roles) AS "isStaff" FROM users WHERE login = ${login}`
    if (rows[0] !== undefined) return { id: rows[0].id, login, isStaff: rows[0].isStaff } satisfies ReviewUser
    if (!createLocal) return undefined
    const created = yield* sql<{ id: number }>`
      INSERT INTO users (login, roles) VALUES (${login}, ${[adminRole]}::text[])
      ON CONFLICT (login) DO UPDATE SET login = EXCLUDED.login RETURNING id`
    return { id: created[0]!.id, login, isStaff: true } satisfies ReviewUser
  }).pipe(dieOnSqlError)

/** The review user of an authenticated caller: administrators are staff here, whatever their row says. */
export const callerReviewUser = (login: string, isAdmin: boolean, createLocal: boolean) =>
  Effect.map(findReviewUser(login, createLocal), (user) =>
    user !== undefined && isAdmin && !user.isStaff ? { ...user, isStaff: true } : user
  )
