import { Effect, Option, Queue, Stream } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { EngineConfig } from "../../engine/EngineConfig.ts"
import { Engine } from "../../engine/Engine.ts"
import { JobQueue } from "../../engine/JobQueue.ts"
import { TaskEvents } from "../../engine/TaskEvents.ts"
import { nameFilter } from "../NameFilter.ts"
import { idOfName, isFinished, type Task, TaskId } from "./Task.ts"
import { TaskForbidden, TaskNotFinished, TaskNotFound } from "./TaskErrors.ts"

/**
 * The rules of the task APIs: a user sees, stops, watches and cleans only their own tasks. A task is named
 * by `ref`: its name (`<runner type>@<id>`, the legacy API's id) or its id (the RPC API's).
 */
export class Tasks extends Effect.Service<Tasks>()("quarry/Tasks", {
  effect: Effect.gen(function* () {
    const queue = yield* JobQueue
    const engine = yield* Engine
    const events = yield* TaskEvents
    const config = yield* EngineConfig

    const find = Effect.fn("Tasks.find")(function* (userId: string, ref: string) {
      const byName = ref.includes("@")
      const task = yield* queue.find(byName ? idOfName(ref) : TaskId.make(ref))
      if (Option.isNone(task) || (byName && task.value.name !== ref)) return yield* new TaskNotFound({ task: ref })
      if (task.value.userId !== userId) return yield* new TaskForbidden({ task: ref })
      return task.value
    })

    const list = Effect.fn("Tasks.list")(function* (userId: string, filter?: string) {
      const matches = nameFilter(filter)
      return (yield* queue.listOwnedBy(userId)).filter((task) => matches(task.name))
    })

    const stop = Effect.fn("Tasks.stop")(function* (userId: string, ref: string) {
      return yield* dieOnSqlError(engine.stop(yield* find(userId, ref)))
    })

    const stopAll = Effect.fn("Tasks.stopAll")(function* (userId: string) {
      return yield* dieOnSqlError(engine.stopAll(userId))
    })

    /** Removes the user's finished tasks (DONE, ERROR, CANCELLED) and returns them. */
    const cleanFinished = Effect.fn("Tasks.cleanFinished")(function* (userId: string) {
      return yield* queue.deleteFinishedOf(userId)
    })

    const clean = Effect.fn("Tasks.clean")(function* (userId: string, ref: string) {
      const task = yield* find(userId, ref)
      const removed = yield* queue.deleteIfFinished(task.id)
      if (Option.isNone(removed)) return yield* new TaskNotFinished({ task: ref })
      return removed.value
    })

    /**
     * The task now, then each change of its state or progress, ending with its final state. Changes are heard
     * from task events; a re-read every poll interval covers events that never arrive.
     */
    const watch = (userId: string, ref: string): Stream.Stream<Task, TaskNotFound | TaskForbidden> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const changes = yield* events.subscribe()
          const first = yield* find(userId, ref)
          const changed = Queue.take(changes).pipe(
            Effect.repeat({ until: (event) => event.id === first.id }),
            Effect.timeoutOption(config.pollInterval)
          )
          const next = changed.pipe(
            Effect.zipRight(queue.find(first.id)),
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(Option.none()), onSome: Effect.succeed }))
          )
          return Stream.concat(Stream.succeed(first), Stream.repeatEffectOption(next)).pipe(
            Stream.changesWith((a, b) => a.state === b.state && a.progress === b.progress),
            Stream.takeUntil((task) => isFinished(task.state))
          )
        })
      )

    /**
     * Several of the user's tasks: those `refs` names, or (no refs) all the user's tasks, including the ones queued
     * later. Each task comes first as it is now, then again at each change of state or progress. With refs the
     * stream ends once every named task has finished; without, it lasts until the consumer stops.
     */
    const watchMany = (userId: string, refs: ReadonlyArray<string> | undefined): Stream.Stream<Task, TaskNotFound | TaskForbidden> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const changes = yield* events.subscribe()
          const initial = refs === undefined ? yield* queue.listOwnedBy(userId) : yield* Effect.forEach(refs, (ref) => find(userId, ref))
          const latest = new Map(initial.map((task) => [task.id, task]))
          const unfinished = () => [...latest.values()].filter((task) => !isFinished(task.state)).map((task) => task.id)
          const isNews = (task: Task) => {
            const known = latest.get(task.id)
            return known === undefined
              ? refs === undefined && task.userId === userId
              : known.state !== task.state || known.progress !== task.progress
          }
          // The tasks an event names, or every unfinished one when a poll interval passes without events.
          const next = Effect.gen(function* () {
            if (refs !== undefined && unfinished().length === 0) return yield* Effect.fail(Option.none())
            const event = yield* Queue.take(changes).pipe(Effect.timeoutOption(config.pollInterval))
            const ids = Option.match(event, {
              onNone: unfinished,
              onSome: (changed) => (refs === undefined || latest.has(changed.id) ? [changed.id] : [])
            })
            const read = yield* Effect.forEach(ids, (id) => queue.find(id))
            const updates = read.flatMap(Option.toArray).filter(isNews)
            for (const task of updates) latest.set(task.id, task)
            return updates
          })
          return Stream.concat(Stream.fromIterable(initial), Stream.flattenIterables(Stream.repeatEffectOption(next)))
        })
      )

    return { find, list, stop, stopAll, cleanFinished, clean, watch, watchMany }
  })
}) {}
