import { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"

const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

/**
 * Where a repository's failed statements become defects: no caller can answer one better than with a server
 * error (500 over HTTP, a defect over RPC), so repositories apply this once and their callers never see SqlError.
 */
export const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
  // catchIf cannot narrow a generic error union; removing exactly SqlError is what the refinement does.
  Effect.catchIf(effect, isSqlError, Effect.die) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>

type Method = (...args: never[]) => Effect.Effect<unknown, unknown, unknown>

type DyingOnSqlError<M> = M extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
  ? (...args: P) => Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>
  : never

/** A repository whose every method dies on a failed statement; see `dieOnSqlError`. */
export const dieOnSqlErrors = <T extends Record<string, Method>>(repository: T): { readonly [K in keyof T]: DyingOnSqlError<T[K]> } =>
  Object.fromEntries(Object.entries(repository).map(([name, method]) => [name, (...args: never[]) => dieOnSqlError(method(...args))])) as {
    readonly [K in keyof T]: DyingOnSqlError<T[K]>
  }

/** Runs `effect` in one transaction (or in the caller's), a failure to begin or commit being a defect too. */
export const inTransaction = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R | SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => dieOnSqlError(sql.withTransaction(effect)))
