import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { Engine } from "../../src/engine/Engine.ts"
import { postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { resetStepsTable, TallyJob } from "./fixtures/kinds.ts"
import { clearTasks, eventually, fastEngine, readTask, startEngine, TestDatabaseUrl, testDatabase } from "./helpers.ts"
import { spawnWorker } from "./processes.ts"

/** Every task DONE with `steps` as result, each step recorded exactly once, and its attempts. */
const checkFinished = (steps: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tasks = yield* sql<{
      id: string
      state: string
      result: unknown
      attempts: number
    }>`SELECT id, state, result, attempts FROM tasks ORDER BY id`
    const counts = yield* sql<{ task_id: string; steps: number; last: number }>`
      SELECT task_id, count(*)::int AS steps, max(step) AS last FROM test_steps GROUP BY task_id ORDER BY task_id`
    expect(tasks.map((task) => [task.state, task.result])).toEqual(tasks.map(() => ["DONE", steps]))
    expect(counts).toEqual(tasks.map((task) => ({ task_id: task.id, steps, last: steps })))
    return tasks.map((task) => task.attempts)
  }).pipe(Effect.orDie)

const steps = 12
const stepMillis = 100
/** Room for every task of a test to run at once. */
const workerEngine = { ...fastEngine, parallelism: 4 }

describe.skipIf(!postgresAvailable)(
  `Engines in separate processes on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    layer(testDatabase("postgres"), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("SIGTERM releases the running tasks; a new process finishes them, none lost, no step run twice", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* resetStepsTable.pipe(Effect.orDie)
          const url = yield* TestDatabaseUrl
          const engine = yield* Effect.provide(Engine, yield* startEngine())
          const tasks = yield* Effect.forEach([1, 2, 3], () => engine.submit(TallyJob, { steps, stepMillis }, { userId: "local" }))
          const first = yield* spawnWorker({ url, engine: workerEngine })
          yield* Effect.forEach(tasks, (task) => first.line(new RegExp(`^step ${task.id} 2$`)))
          yield* first.signal("SIGTERM")
          expect(yield* first.exited).toBe(0)
          for (const task of tasks) {
            const released = yield* readTask(task.id)
            expect(released.state).toBe("QUEUED")
            expect(released.checkpoint).toBeGreaterThanOrEqual(2)
          }
          const second = yield* spawnWorker({ url, engine: workerEngine })
          yield* eventually(
            Effect.forEach(tasks, (task) => readTask(task.id)),
            (all) => all.every((t) => t.state === "DONE"),
            "20 seconds"
          )
          yield* second.signal("SIGTERM")
          expect(yield* checkFinished(steps)).toEqual([2, 2, 2])
        })
      )

      it.scoped("a killed process's task keeps its lease until it expires, then another process re-runs it", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* resetStepsTable.pipe(Effect.orDie)
          const url = yield* TestDatabaseUrl
          const engine = yield* Effect.provide(Engine, yield* startEngine())
          const task = yield* engine.submit(TallyJob, { steps, stepMillis }, { userId: "local" })
          const killed = yield* spawnWorker({ url, engine: workerEngine })
          yield* killed.line(new RegExp(`^step ${task.id} 2$`))
          yield* killed.signal("SIGKILL")
          expect(yield* killed.exited).toBeNull()
          const orphan = yield* readTask(task.id)
          expect(orphan.state).toBe("RUNNING")
          const survivor = yield* spawnWorker({ url, engine: workerEngine })
          yield* eventually(readTask(task.id), (t) => t.state === "DONE", "20 seconds")
          yield* survivor.signal("SIGTERM")
          expect(yield* checkFinished(steps)).toEqual([2])
        })
      )

      it.scoped("a stop in one process interrupts the handler running in another within a second", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* resetStepsTable.pipe(Effect.orDie)
          const url = yield* TestDatabaseUrl
          const engine = yield* Effect.provide(Engine, yield* startEngine())
          const task = yield* engine.submit(TallyJob, { steps: 100, stepMillis }, { userId: "local" })
          const worker = yield* spawnWorker({ url, engine: workerEngine })
          yield* worker.line(new RegExp(`^step ${task.id} 1$`))
          const stoppedAt = Date.now()
          expect(yield* engine.stop(yield* readTask(task.id))).toBe(true)
          yield* worker.line(new RegExp(`^interrupted ${task.id}$`), "1 second")
          expect(Date.now() - stoppedAt).toBeLessThan(1_000)
          expect((yield* readTask(task.id)).state).toBe("CANCELLED")
        })
      )
    })
  }
)

/** Opens an embedded database directory in this process once the workers are gone. */
const openEmbedded = (directory: string) => Layer.build(databaseLayer(`pglite:${directory}`).pipe(Layer.orDie))

describe("Engines in successive processes on an embedded PGlite directory (one process at a time)", () => {
  const run = (stop: "SIGTERM" | "SIGKILL") =>
    Effect.gen(function* () {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-engine-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const url = `pglite:${directory}`
      const first = yield* spawnWorker({ url, engine: workerEngine, enqueue: { count: 2, steps, stepMillis } })
      const queued = [yield* first.line(/^queued /), yield* first.line(/^queued /)].map((line) => line.slice("queued ".length))
      yield* Effect.forEach(queued, (id) => first.line(new RegExp(`^step ${id} 2$`)))
      yield* first.signal(stop)
      expect(yield* first.exited).toBe(stop === "SIGTERM" ? 0 : null)
      const second = yield* spawnWorker({ url, engine: workerEngine, exitWhenIdle: true })
      yield* second.line(/^idle$/, "30 seconds")
      expect(yield* second.exited).toBe(0)
      return yield* checkFinished(steps).pipe(Effect.provide(yield* openEmbedded(directory)))
    })

  it.scoped(
    "SIGTERM releases the running tasks and the next process finishes them, no step run twice",
    () => Effect.map(run("SIGTERM"), (attempts) => expect(attempts).toEqual([2, 2])),
    { timeout: 60_000 }
  )

  it.scoped(
    "after a kill, the next process reaps the tasks once their lease expires and finishes them",
    () => Effect.map(run("SIGKILL"), (attempts) => expect(attempts).toEqual([2, 2])),
    { timeout: 60_000 }
  )
})
