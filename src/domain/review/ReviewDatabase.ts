import { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"

const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

/**
 * The one place where the review domain's database failures become defects: no caller of a review read or write
 * can answer a failed statement better than with a server error, so none of them has to handle it. Every review
 * repository and use case passes its work through here.
 */
export const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
  // catchIf cannot narrow a generic error union; removing exactly SqlError is what the refinement does.
  Effect.catchIf(effect, isSqlError, Effect.die) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>

/** Runs `effect` in one transaction (or in the caller's), a failure to begin or commit being a defect too. */
export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R | SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => dieOnSqlError(sql.withTransaction(effect)))
