import { describe, expect, layer } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { Engine } from "../../src/engine/Engine.ts"
import { SleepJob } from "../../src/engine/kinds/SleepJob.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { blockJobLayer, BlockJob, makeBlockSignals } from "./fixtures/kinds.ts"
import { clearTasks, eventually, readTask, startEngine, testDatabase } from "./helpers.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Engine on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("runs a task to DONE with its result, progress 1 and one attempt", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const context = yield* startEngine()
          const engine = yield* Effect.provide(Engine, context)
          const task = yield* engine.submit(SleepJob, { steps: 3, stepMillis: 10 }, { userId: "alice" })
          expect(task.state).toBe("QUEUED")
          expect(task.name).toBe(`quarry.tasks.SleepTask@${task.id}`)
          const done = yield* eventually(readTask(task.id), (t) => t.state === "DONE")
          expect(done.result).toBe(3)
          expect(done.progress).toBe(1)
          expect(done.attempts).toBe(1)
          expect(done.checkpoint).toBe(3)
          expect(done.finishedAt).not.toBeNull()
        })
      )

      it.scoped("keeps the message of a failed task in ERROR", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const engine = yield* Effect.provide(Engine, yield* startEngine())
          const task = yield* engine.submit(SleepJob, { steps: 1, stepMillis: 0, failWith: "disk full" }, { userId: "alice" })
          const failed = yield* eventually(readTask(task.id), (t) => t.state === "ERROR")
          expect(failed.error).toBe("SleepFailed: disk full")
          expect(failed.result).toBeNull()
        })
      )

      it.scoped("stop interrupts a running handler within a second and records CANCELLED", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const signals = yield* makeBlockSignals
          const engine = yield* Effect.provide(Engine, yield* startEngine({}, blockJobLayer(signals)))
          const task = yield* engine.submit(BlockJob, {}, { userId: "alice" })
          expect(yield* Queue.take(signals.started)).toBe(task.id)
          const running = yield* readTask(task.id)
          const stoppedAt = Date.now()
          expect(yield* engine.stop(running)).toBe(true)
          const interrupted = yield* Queue.take(signals.interrupted).pipe(Effect.timeout("1 second"))
          expect(interrupted.id).toBe(task.id)
          expect(interrupted.at - stoppedAt).toBeLessThan(1_000)
          expect((yield* readTask(task.id)).state).toBe("CANCELLED")
          expect(yield* engine.stop(running)).toBe(false)
        })
      )

      it.scoped("stopAll cancels each of the user's queued and running tasks and no one else's", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const signals = yield* makeBlockSignals
          const engine = yield* Effect.provide(Engine, yield* startEngine({ kindConcurrency: { block: 3 } }, blockJobLayer(signals)))
          const first = yield* engine.submit(BlockJob, {}, { userId: "alice" })
          const second = yield* engine.submit(BlockJob, {}, { userId: "alice" })
          const others = yield* engine.submit(BlockJob, {}, { userId: "bob" })
          yield* Effect.forEach([1, 2, 3], () => Queue.take(signals.started))
          const queued = yield* engine.submit(BlockJob, {}, { userId: "alice" })
          const cancelled = yield* engine.stopAll("alice")
          expect(cancelled.map((task) => task.name).sort()).toEqual([first.name, second.name, queued.name].sort())
          const interrupted = yield* Effect.forEach([1, 2], () => Queue.take(signals.interrupted)).pipe(Effect.timeout("1 second"))
          expect(interrupted.map(({ id }) => id).sort()).toEqual([first.id, second.id].sort())
          for (const task of [first, second, queued]) expect((yield* readTask(task.id)).state).toBe("CANCELLED")
          expect((yield* readTask(others.id)).state).toBe("RUNNING")
          expect(yield* engine.stopAll("alice")).toEqual([])
        })
      )
    })
  })
}
