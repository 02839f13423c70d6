import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Queue, Scope } from "effect"
import type { TaskId } from "../../src/domain/task/Task.ts"
import { Engine } from "../../src/engine/Engine.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { BlockJob, blockJobLayer, createRunsTable, makeBlockSignals, RecordJob, recordJobLayer } from "./fixtures/kinds.ts"
import { clearTasks, eventually, readTask, startEngine, testDatabase } from "./helpers.ts"

/** Makes a queued task look claimed by an engine that died: RUNNING, leased by `dead` until `leaseMillis` from now. */
const leaseToDeadEngine = (id: TaskId, attempts: number, leaseMillis: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE tasks SET state = 'RUNNING', attempts = ${attempts}, lease_owner = 'dead',
      lease_expires_at = now() + ${leaseMillis}::int * interval '1 millisecond' WHERE id = ${id}`
  ).pipe(Effect.orDie)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Task leases on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("shutting an engine down releases its running tasks to QUEUED and the next engine runs them", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const signals = yield* makeBlockSignals
          const scope = yield* Scope.make()
          const first = yield* Effect.provide(Engine, yield* startEngine({}, blockJobLayer(signals)).pipe(Scope.extend(scope)))
          const tasks = yield* Effect.forEach([1, 2], () => first.submit(BlockJob, {}, { userId: "alice" }))
          yield* Effect.forEach(tasks, () => Queue.take(signals.started))
          yield* Scope.close(scope, Exit.void)
          const interrupted = yield* Queue.takeAll(signals.interrupted)
          expect([...interrupted].map(({ id }) => id).sort()).toEqual(tasks.map((task) => task.id).sort())
          for (const task of tasks) expect((yield* readTask(task.id)).state).toBe("QUEUED")
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT id FROM tasks WHERE lease_owner IS NOT NULL`).toEqual([])

          const restarted = yield* makeBlockSignals
          yield* startEngine({}, blockJobLayer(restarted))
          const started = yield* Effect.forEach(tasks, () => Queue.take(restarted.started)).pipe(Effect.timeout("5 seconds"))
          expect([...started].sort()).toEqual(tasks.map((task) => task.id).sort())
          for (const task of tasks) expect((yield* readTask(task.id)).attempts).toBe(2)
        })
      )

      it.scoped("a task whose engine died is left alone until its lease expires, then reaped and run again", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* createRunsTable.pipe(Effect.orDie)
          // This engine has no handler for the kind, so the task stays queued until it is made to look claimed.
          const enqueuer = yield* Effect.provide(Engine, yield* startEngine())
          const task = yield* enqueuer.submit(RecordJob, {}, { userId: "alice" })
          yield* leaseToDeadEngine(task.id, 1, 800)
          yield* startEngine({}, recordJobLayer("survivor"))
          // Several reaper rounds (every 250 ms) pass while the lease still holds: none may take the task.
          yield* Effect.sleep("400 millis")
          const leased = yield* readTask(task.id)
          expect(leased.state).toBe("RUNNING")
          expect(leased.attempts).toBe(1)
          const done = yield* eventually(readTask(task.id), (t) => t.state === "DONE", "5 seconds")
          expect(done.attempts).toBe(2)
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT engine FROM test_runs WHERE task_id = ${task.id}`).toEqual([{ engine: "survivor" }])
        })
      )

      it.scoped("a task whose lease expired maxAttempts times ends in ERROR instead of looping", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const engine = yield* Effect.provide(Engine, yield* startEngine({ maxAttempts: 3 }))
          const task = yield* engine.submit(RecordJob, {}, { userId: "alice" })
          yield* leaseToDeadEngine(task.id, 3, 0)
          const failed = yield* eventually(readTask(task.id), (t) => t.state === "ERROR", "5 seconds")
          expect(failed.error).toBe("lease expired 3 times")
          expect(failed.finishedAt).not.toBeNull()
        })
      )
    })
  })
}
