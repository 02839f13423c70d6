/**
 * `npm run bench -- engine`: no-op tasks per second through the job engine (enqueue → claim → DONE, each a
 * committed statement with its notification) on the embedded database and on the PostgreSQL server, against the
 * raw rate of the same number of `INSERT` + `UPDATE` statement pairs on the same database with the same
 * concurrency. The ratio is the engine's share of what the database allows (higher is better).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule, Schema } from "effect"
import { databaseLayer } from "../src/db/Database.ts"
import { runMigrations } from "../src/db/Migrator.ts"
import { Engine } from "../src/engine/Engine.ts"
import * as JobKind from "../src/engine/JobKind.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { postgresAvailable, throwawayPostgres } from "../test/helpers/databases.ts"
import { report } from "./report.ts"

const taskCount = Number(process.env.BENCH_TASKS ?? 3_000)
/** Clients queueing at once, and statement pairs in flight at once for the baseline. */
const concurrency = 8

const NoopJob = JobKind.make({ name: "noop", payload: Schema.Struct({}), success: Schema.Void, error: Schema.Never })

const doneCount = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM tasks WHERE state = 'DONE'`
).pipe(Effect.map((rows) => rows[0]?.count ?? 0))

/** Seconds to queue `count` no-op tasks and see them all DONE. */
const engineRun = (count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const engine = yield* Engine
    yield* sql`DELETE FROM tasks`
    const started = performance.now()
    yield* Effect.forEach(Array.from({ length: count }), () => engine.submit(NoopJob, {}, { userId: "bench" }), {
      concurrency,
      discard: true
    })
    yield* doneCount.pipe(Effect.repeat({ until: (done) => done >= count, schedule: Schedule.spaced("10 millis") }))
    return (performance.now() - started) / 1_000
  })

/** Seconds for `count` INSERT + UPDATE pairs on a table shaped like the task table's hot columns. */
const baselineRun = (count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS bench_rows (id text PRIMARY KEY, state text NOT NULL, payload jsonb NOT NULL)`
    yield* sql`TRUNCATE bench_rows`
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: count }, (_, index) => `row-${index}`),
      (id) =>
        sql`INSERT INTO bench_rows (id, state, payload) VALUES (${id}, 'QUEUED', '{}'::jsonb)`.pipe(
          Effect.zipRight(sql`UPDATE bench_rows SET state = 'DONE' WHERE id = ${id}`)
        ),
      { concurrency, discard: true }
    )
    return (performance.now() - started) / 1_000
  })

const measure = (url: string) =>
  Effect.gen(function* () {
    const engine = engineLayer({ parallelism: 16 })
    const context = yield* Layer.build(Layer.merge(engine, NoopJob.toLayer(() => Effect.void).pipe(Layer.provide(engine))))
    // Warm-up: JIT, pools, plans.
    yield* engineRun(300).pipe(Effect.provide(context))
    yield* baselineRun(300)
    const engineSeconds = yield* engineRun(taskCount).pipe(Effect.provide(context))
    const baselineSeconds = yield* baselineRun(taskCount)
    return { tasksPerSecond: Math.round(taskCount / engineSeconds), baselinePairsPerSecond: Math.round(taskCount / baselineSeconds) }
  }).pipe(Effect.scoped, Effect.provide(Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(url)))))

export const run = async () => {
  const embedded = await Effect.runPromise(measure("pglite:memory"))
  process.stdout.write(`embedded: ${embedded.tasksPerSecond} tasks/s, baseline ${embedded.baselinePairsPerSecond} INSERT+UPDATE pairs/s\n`)
  const server = postgresAvailable
    ? await Effect.runPromise(Effect.scoped(Effect.flatMap(throwawayPostgres, ({ url }) => measure(url))))
    : undefined
  if (server !== undefined) {
    process.stdout.write(`server:   ${server.tasksPerSecond} tasks/s, baseline ${server.baselinePairsPerSecond} INSERT+UPDATE pairs/s\n`)
  }
  const ratio = (figures: { tasksPerSecond: number; baselinePairsPerSecond: number }) =>
    Math.round((figures.tasksPerSecond / figures.baselinePairsPerSecond) * 100) / 100
  report("engine", {
    tasks: taskCount,
    embeddedTasksPerSecond: embedded.tasksPerSecond,
    embeddedBaselineInsertUpdatePairsPerSecond: embedded.baselinePairsPerSecond,
    embeddedRatio: ratio(embedded),
    ...(server === undefined
      ? { serverSkipped: "PostgreSQL server not reachable" }
      : {
          serverTasksPerSecond: server.tasksPerSecond,
          serverBaselineInsertUpdatePairsPerSecond: server.baselinePairsPerSecond,
          serverRatio: ratio(server)
        }),
    ratio: ratio(server ?? embedded)
  })
}
