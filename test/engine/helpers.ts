import { SqlClient } from "@effect/sql"
import { Context, Duration, Effect, Layer } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { runMigrations } from "../../src/db/Migrator.ts"
import { type TaskId, type TaskRow, taskColumns, taskFromRow } from "../../src/domain/task/Task.ts"
import type { EngineOptions } from "../../src/engine/EngineConfig.ts"
import { SleepJobLive } from "../../src/engine/kinds/SleepJobLive.ts"
import { engineLayer } from "../../src/engine/Layer.ts"
import { dataSourceUrlFor, type DatabaseKind } from "../helpers/databases.ts"

/** The `--dataSourceUrl` of the database under test, for second engines and child processes. */
export class TestDatabaseUrl extends Context.Tag("test/TestDatabaseUrl")<TestDatabaseUrl, string>() {}

/** A migrated database of `kind` (in-memory PGlite or a throwaway PostgreSQL database) shared by a file's tests. */
export const testDatabase = (kind: DatabaseKind) =>
  Layer.unwrapScoped(
    Effect.map(dataSourceUrlFor(kind), (url) =>
      Layer.effectDiscard(runMigrations()).pipe(
        Layer.provideMerge(databaseLayer(url)),
        Layer.provideMerge(Layer.succeed(TestDatabaseUrl, url)),
        Layer.orDie
      )
    )
  )

/** Short intervals so that leases, reaping and polling happen within a test's patience. */
export const fastEngine: EngineOptions = {
  leaseDuration: "1500 millis",
  heartbeatInterval: "300 millis",
  reapInterval: "250 millis",
  pollInterval: "100 millis",
  progressInterval: "50 millis"
}

/** The engine with the diagnostic sleep kind, which the engine's own tests submit. */
const engineWithSleep = (options: EngineOptions) => {
  const engine = engineLayer({ ...fastEngine, ...options })
  return Layer.merge(engine, SleepJobLive.pipe(Layer.provide(engine)))
}

/**
 * An engine (with the sleep kind and `kinds`) over the database in context, for the current scope; each
 * test starts its own so that closing it is part of what the test controls.
 */

export const startEngine = <E = never, R = never>(options: EngineOptions = {}, ...kinds: ReadonlyArray<Layer.Layer<never, E, R>>) => {
  const engine = engineWithSleep(options)
  return Layer.build(Layer.mergeAll(engine, ...kinds.map((kind) => kind.pipe(Layer.provide(engine)))))
}

/**
 * A second engine as another process would have it: on PostgreSQL with its own connection pool (and LISTEN
 * connection); an in-memory PGlite cannot be opened twice, so there it shares the pool.
 */
export const startOtherEngine = <E = never, R = never>(options: EngineOptions = {}, ...kinds: ReadonlyArray<Layer.Layer<never, E, R>>) =>
  Effect.gen(function* () {
    const url = yield* TestDatabaseUrl
    if (url.startsWith("pglite:")) return yield* startEngine(options, ...kinds)
    const engine = engineWithSleep(options)
    return yield* Layer.build(
      Layer.mergeAll(engine, ...kinds.map((kind) => kind.pipe(Layer.provide(engine)))).pipe(Layer.provide(databaseLayer(url)), Layer.orDie)
    )
  })

/** Empties the tasks table between tests sharing a database. */
export const clearTasks = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM tasks`).pipe(Effect.orDie)

/** Re-runs `read` every 25 ms until `done` holds, failing with the last value after `timeout`. */
export const eventually = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  timeout: Duration.DurationInput = "10 seconds"
) =>
  Effect.gen(function* () {
    const deadline = Date.now() + Duration.toMillis(Duration.decode(timeout))
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline)
        return yield* Effect.dieMessage(`condition not met within ${Duration.format(Duration.decode(timeout))}: ${JSON.stringify(value)}`)
      yield* Effect.sleep("25 millis")
    }
  })

/** The stored task, or a defect when it is missing. */
export const readTask = (id: TaskId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<TaskRow>`SELECT ${sql.literal(taskColumns)} FROM tasks WHERE id = ${id}`).pipe(
    Effect.orDie,
    Effect.flatMap((rows) => (rows[0] === undefined ? Effect.dieMessage(`task ${id} is missing`) : Effect.succeed(taskFromRow(rows[0]))))
  )

/** Counts tasks by state. */
export const countByState = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ state: string; count: number }>`SELECT state, count(*)::int AS count FROM tasks GROUP BY state`
).pipe(
  Effect.orDie,
  Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.state, row.count])))
)
