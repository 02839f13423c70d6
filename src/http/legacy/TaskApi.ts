import { Schema } from "effect"
import { isTaskFile, type Task } from "../../domain/task/Task.ts"
import { LegacyUser } from "../../domain/user/User.ts"

/** A task as the legacy API prints it (reference §3.11): null members omitted, progress "NaN" when unknown. */
export const LegacyTaskView = Schema.Struct({
  name: Schema.String,
  state: Schema.Literal("RUNNING", "DONE", "ERROR", "CANCELLED"),
  progress: Schema.Union(Schema.Number, Schema.Literal("NaN")),
  user: LegacyUser,
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String)
})
export type LegacyTaskView = typeof LegacyTaskView.Type

/** `PUT /api/task/stopAll`: each cancelled task's name mapped to whether it was stopped. */
export const StopAllAnswer = Schema.Record({ key: Schema.String, value: Schema.Boolean })

/**
 * The legacy view of a task. The reference has no queued state (its executor shows waiting tasks as running),
 * so QUEUED reads as RUNNING with progress 0; a file result reads as its path.
 */
export const legacyTaskView = (task: Task, user: LegacyUser): LegacyTaskView => {
  const queued = task.state === "QUEUED"
  const result = isTaskFile(task.result) ? task.result.path : task.result
  return {
    name: task.name,
    state: queued ? "RUNNING" : task.state,
    progress: queued ? 0 : (task.progress ?? "NaN"),
    user,
    ...(result === null || result === undefined ? {} : { result }),
    ...(task.error === null ? {} : { error: task.error })
  }
}
