/** A lock on the documents, held from a second session of the server, that a search's statements wait for. */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect } from "effect"

/**
 * Another session holding an exclusive lock on `documents` until `release`, and the number of statements waiting
 * for a lock (the searches it blocks).
 */
export const lockDocuments = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const locked = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const holder = yield* sql
    .withTransaction(
      Effect.gen(function* () {
        yield* sql`LOCK TABLE documents IN ACCESS EXCLUSIVE MODE`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      })
    )
    .pipe(Effect.fork)
  yield* Deferred.await(locked)
  const waiting = sql<{ count: number }>`
    SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(
    Effect.map((rows) => rows[0]!.count)
  )
  return { waiting, release, holder }
})
