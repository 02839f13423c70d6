import { randomUUID } from "node:crypto"
import { Cause, Duration, Effect, Exit, FiberMap, Queue, Schema } from "effect"
import { type Task, TaskId, taskName } from "../domain/task/Task.ts"
import { EngineConfig } from "./EngineConfig.ts"
import { JobQueue } from "./JobQueue.ts"
import { defectText, type KindRunner, type SubmittableKind } from "./KindRunner.ts"
import { TaskEvents } from "./TaskEvents.ts"

/** A registered kind in this process: its running tasks and the signal that wakes its claim loop. */
interface RunningKind {
  readonly fibers: FiberMap.FiberMap<TaskId>
  readonly wakeUps: Queue.Queue<void>
}

/** At most this many tasks are claimed in one statement. */
const maxClaimBatch = 64

const logFailure =
  (what: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.catchAllCause((cause) => Effect.logWarning(`${what} failed`, cause)))

/** Runs `effect` every `interval`, forever, in the current scope; a failed round is logged and the next one runs. */
const every = <E, R>(interval: Duration.Duration, what: string, effect: Effect.Effect<unknown, E, R>) =>
  Effect.sleep(interval).pipe(Effect.zipRight(logFailure(what)(effect)), Effect.forever, Effect.forkScoped)

/**
 * Runs durable tasks: per kind, a claim loop that takes queued tasks while the kind's semaphore has free permits
 * and runs each as a fiber in a FiberMap keyed by task id. Heartbeats keep the leases of running tasks, a reaper
 * requeues tasks of dead engines, and task events (LISTEN/NOTIFY or in-process) wake claim loops and interrupt
 * stopped tasks, whichever process stopped them.
 */
export class Engine extends Effect.Service<Engine>()("quarry/Engine", {
  scoped: Effect.gen(function* () {
    const config = yield* EngineConfig
    const queue = yield* JobQueue
    const events = yield* TaskEvents
    const kinds = new Map<string, RunningKind>()
    // Latest unwritten progress per task; flushed in one statement every progressInterval.
    const pendingProgress = new Map<TaskId, number>()

    const wake = (kind: string) => {
      const running = kinds.get(kind)
      return running === undefined ? Effect.void : Queue.offer(running.wakeUps, undefined)
    }
    const interrupt = (kind: string, id: TaskId) => {
      const running = kinds.get(kind)
      return running === undefined ? Effect.void : FiberMap.remove(running.fibers, id)
    }

    const subscription = yield* events.subscribe()
    yield* Queue.take(subscription).pipe(
      Effect.flatMap((event) =>
        event.type === "queued" ? wake(event.kind) : event.type === "cancelled" ? Effect.fork(interrupt(event.kind, event.id)) : Effect.void
      ),
      Effect.forever,
      Effect.forkScoped
    )

    // A task missing from the heartbeat's answer was stopped or reaped meanwhile: its fiber must not go on.
    yield* every(
      config.heartbeatInterval,
      "task heartbeat",
      Effect.gen(function* () {
        const held = [...kinds.values()].flatMap((running) => [...running.fibers].map(([id]) => ({ id, running })))
        const alive = yield* queue.heartbeat(held.map(({ id }) => id))
        const lost = held.filter(({ id }) => !alive.has(id))
        if (lost.length > 0) yield* Effect.logInfo(`interrupting ${lost.length} task(s) no longer held by this engine`)
        yield* Effect.forEach(lost, ({ id, running }) => FiberMap.remove(running.fibers, id), { discard: true })
      })
    )
    yield* logFailure("task reaper")(queue.reap())
    yield* every(config.reapInterval, "task reaper", queue.reap())
    yield* every(
      config.progressInterval,
      "task progress",
      Effect.suspend(() => {
        const updates = [...pendingProgress].map(([id, progress]) => ({ id, progress }))
        pendingProgress.clear()
        return queue.progress(updates)
      })
    )

    const record = (task: Task, exit: Exit.Exit<unknown, string>) => {
      pendingProgress.delete(task.id)
      if (Exit.isSuccess(exit)) return queue.complete(task.id, exit.value)
      // Interrupted: stopped (already CANCELLED), released at shutdown, or lease lost; nothing to write.
      if (Cause.isInterrupted(exit.cause)) return Effect.void
      const failure = Cause.failureOption(exit.cause)
      return queue.fail(task.id, failure._tag === "Some" ? failure.value : defectText(exit.cause))
    }

    // Once the handler has ended, its outcome is written even if an interruption arrives meanwhile.
    const runTask = (runner: KindRunner, task: Task) =>
      Effect.uninterruptibleMask((restore) =>
        restore(
          runner.run(task, {
            reportProgress: (fraction) => Effect.sync(() => pendingProgress.set(task.id, Math.min(1, Math.max(0, fraction)))),
            saveCheckpoint: (encoded) => queue.checkpoint(task.id, encoded).pipe(Effect.orDie, Effect.asVoid)
          })
        ).pipe(
          Effect.exit,
          Effect.flatMap((exit) => record(task, exit)),
          logFailure(`recording the end of ${task.name}`)
        )
      )

    const claimLoop = (runner: KindRunner, running: RunningKind, semaphore: Effect.Semaphore) =>
      Effect.gen(function* () {
        yield* semaphore.take(1)
        // release(0) answers the free permits: claim for all of them at once.
        const extra = Math.min(yield* semaphore.release(0), maxClaimBatch - 1)
        yield* semaphore.take(extra)
        yield* Queue.takeAll(running.wakeUps)
        // Uninterruptible: a claim cut short at shutdown could still commit, leaving tasks no fiber runs and no
        // release covers; this way every claimed task is in the FiberMap before the loop can stop.
        const tasks = yield* Effect.uninterruptible(
          queue.claim(runner.name, extra + 1).pipe(
            Effect.onError(() => semaphore.release(extra + 1)),
            Effect.tap((tasks) => semaphore.release(extra + 1 - tasks.length)),
            Effect.tap((tasks) =>
              Effect.forEach(
                tasks,
                (task) => FiberMap.run(running.fibers, task.id, runTask(runner, task).pipe(Effect.ensuring(semaphore.release(1)))),
                { discard: true }
              )
            )
          )
        )
        if (tasks.length <= extra) yield* Queue.take(running.wakeUps).pipe(Effect.timeoutOption(config.pollInterval))
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`claiming ${runner.name} tasks failed`, cause).pipe(Effect.zipRight(Effect.sleep(config.pollInterval)))
        ),
        Effect.forever
      )

    /**
     * Starts claiming tasks of a kind until the caller's scope closes; then its running tasks are interrupted and
     * handed back to the queue, while the services their handlers use are still up.
     */
    const register = Effect.fn("Engine.register")(function* (runner: KindRunner) {
      if (kinds.has(runner.name)) return yield* Effect.dieMessage(`job kind ${runner.name} is registered twice`)
      const running: RunningKind = { fibers: yield* FiberMap.make<TaskId>(), wakeUps: yield* Queue.sliding<void>(1) }
      const semaphore = yield* Effect.makeSemaphore(config.kindConcurrency[runner.name] ?? runner.concurrency ?? config.parallelism)
      kinds.set(runner.name, running)
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* FiberMap.clear(running.fibers)
          kinds.delete(runner.name)
          const released = yield* queue.release(runner.name)
          if (released > 0) yield* Effect.logInfo(`released ${released} running ${runner.name} task(s) to the queue`)
        }).pipe(logFailure(`releasing ${runner.name} tasks`))
      )
      yield* Effect.forkScoped(claimLoop(runner, running, semaphore))
    })

    /** Queues a task of `kind` for `userId`; `id` (URL-safe) defaults to a new uuid. */
    const submit = Effect.fn("Engine.submit")(function* <K extends SubmittableKind>(
      kind: K,
      payload: Schema.Schema.Type<K["payload"]>,
      options: { readonly userId: string; readonly id?: string }
    ) {
      const id = TaskId.make(options.id ?? randomUUID())
      // Ids end task names and appear in URLs and notifications: no `@`, no spaces, nothing to escape.
      if (!/^[A-Za-z0-9._~-]+$/.test(id)) return yield* Effect.dieMessage(`task id ${JSON.stringify(id)} is not URL-safe`)
      const encoded = yield* Schema.encode(kind.payload)(payload).pipe(Effect.orDie)
      const task = yield* queue.enqueue({
        id,
        name: taskName(kind.runnerType, id),
        kind: kind.name,
        userId: options.userId,
        payload: encoded
      })
      yield* wake(kind.name)
      return task
    })

    /** Cancels a queued or running task and interrupts its handler; false when it had already finished. */
    const stop = Effect.fn("Engine.stop")(function* (task: Task) {
      const cancelled = yield* queue.cancel(task.id)
      if (cancelled) yield* interrupt(task.kind, task.id)
      return cancelled
    })

    /** Cancels every queued or running task of a user; returns the tasks cancelled. */
    const stopAll = Effect.fn("Engine.stopAll")(function* (userId: string) {
      const cancelled = yield* queue.cancelAllOf(userId)
      yield* Effect.forEach(cancelled, (task) => interrupt(task.kind, task.id), { concurrency: "unbounded", discard: true })
      return cancelled
    })

    return { register, submit, stop, stopAll }
  })
}) {}
