import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Engine } from "../../src/engine/Engine.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { createRunsTable, RecordJob, recordJobLayer } from "./fixtures/kinds.ts"
import { clearTasks, countByState, eventually, startEngine, startOtherEngine, testDatabase } from "./helpers.ts"

const taskCount = 1_000

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const pools = database === "postgres" ? "two connection pools" : "one shared PGlite"
  describe.skipIf(skip)(`Two engines on one ${database} database${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped(`never run the same task twice (${taskCount} tasks, ${pools})`, () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* createRunsTable.pipe(Effect.orDie)
          const options = { kindConcurrency: { record: 4 } }
          const engine = yield* Effect.provide(Engine, yield* startEngine(options, recordJobLayer("a")))
          yield* startOtherEngine(options, recordJobLayer("b"))
          yield* Effect.forEach(Array.from({ length: taskCount }), () => engine.submit(RecordJob, {}, { userId: "alice" }), {
            concurrency: 8,
            discard: true
          })
          const states = yield* eventually(countByState, (counts) => counts.DONE === taskCount, "60 seconds")
          expect(states).toEqual({ DONE: taskCount })
          const sql = yield* SqlClient.SqlClient
          const runs = yield* sql<{ engine: string; runs: number }>`SELECT engine, count(*)::int AS runs FROM test_runs GROUP BY engine`
          const byEngine = Object.fromEntries(runs.map((row) => [row.engine, row.runs]))
          // test_runs' primary key makes a second run of a task fail, which would leave it in ERROR.
          expect((byEngine.a ?? 0) + (byEngine.b ?? 0)).toBe(taskCount)
          expect(byEngine.a).toBeGreaterThan(0)
          expect(byEngine.b).toBeGreaterThan(0)
          const attempts = yield* sql<{ max: number }>`SELECT max(attempts)::int AS max FROM tasks`
          expect(attempts[0]?.max).toBe(1)
        })
      )
    })
  })
}
