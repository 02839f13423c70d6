import { Effect, Schema } from "effect"
import { batchDownloadProperties } from "../../domain/batch-download/BatchDownload.ts"
import { isTaskFile, type Task } from "../../domain/task/Task.ts"
import { LegacyUser } from "../../domain/user/User.ts"
import { indexRateOf } from "../../engine/kinds/IndexJob.ts"

/** A task as the legacy API prints it: null members omitted, progress "NaN" when unknown. */
export const LegacyTaskView = Schema.Struct({
  name: Schema.String,
  state: Schema.Literal("RUNNING", "DONE", "ERROR", "CANCELLED"),
  progress: Schema.Union(Schema.Number, Schema.Literal("NaN")),
  user: LegacyUser,
  result: Schema.optional(Schema.Unknown),
  /** Only for batch downloads: `{"batchDownload": {...}}`. */
  properties: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  error: Schema.optional(Schema.String),
  /** Only for index tasks once started: files and bytes taken so far and their rate, as `--mode CLI` shows them. */
  rate: Schema.optional(
    Schema.Struct({ files: Schema.Number, bytes: Schema.Number, filesPerSecond: Schema.Number, megabytesPerSecond: Schema.Number })
  )
})
export type LegacyTaskView = typeof LegacyTaskView.Type

/** `PUT /api/task/stopAll`: each cancelled task's name mapped to whether it was stopped. */
export const StopAllAnswer = Schema.Record({ key: Schema.String, value: Schema.Boolean })

/**
 * The legacy view of a task. The reference has no queued state (its executor shows waiting tasks as running),
 * so QUEUED reads as RUNNING with progress 0; a file result reads as its path.
 */
export const legacyTaskView = (task: Task, user: LegacyUser, properties?: Readonly<Record<string, unknown>>): LegacyTaskView => {
  const queued = task.state === "QUEUED"
  const result = isTaskFile(task.result) ? task.result.path : task.result
  const rate = indexRateOf(task, new Date())
  return {
    name: task.name,
    state: queued ? "RUNNING" : task.state,
    progress: queued ? 0 : (task.progress ?? "NaN"),
    user,
    ...(result === null || result === undefined ? {} : { result }),
    ...(properties === undefined ? {} : { properties }),
    ...(task.error === null ? {} : { error: task.error }),
    ...(rate === undefined ? {} : { rate })
  }
}

/** The legacy view with the properties of its kind read live (a batch download's archive on disk). */
export const liveTaskView = (task: Task, user: LegacyUser) =>
  Effect.map(batchDownloadProperties(task, user), (properties) => legacyTaskView(task, user, properties))
