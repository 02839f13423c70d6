import { Effect, Stream } from "effect"
import { Tasks } from "../domain/task/Tasks.ts"
import type { CallerOf } from "./Caller.ts"
import { TaskRpcs } from "./TaskRpcs.ts"

/** The task RPCs over the Tasks service; database failures are defects (the client sees a defect response). */
export const taskRpcHandlers = (callerOf: CallerOf) =>
  TaskRpcs.toLayer(
    Effect.gen(function* () {
      const tasks = yield* Tasks
      return {
        listTasks: ({ filter }, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.list(userId, filter)),
        getTask: ({ id }, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.find(userId, id)),
        stopTask: ({ id }, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.stop(userId, id)),
        stopAll: (_, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.stopAll(userId)),
        watchTasks: ({ id }, { headers }) => Stream.unwrap(Effect.map(callerOf(headers), (userId) => tasks.watch(userId, id))),
        watchManyTasks: ({ ids }, { headers }) => Stream.unwrap(Effect.map(callerOf(headers), (userId) => tasks.watchMany(userId, ids))),
        cleanTask: ({ id }, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.clean(userId, id)),
        cleanFinishedTasks: (_, { headers }) => Effect.flatMap(callerOf(headers), (userId) => tasks.cleanFinished(userId))
      }
    })
  )
