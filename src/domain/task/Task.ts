import { Schema } from "effect"

/** A task's id: URL-safe and unique; the task's name ends with it. */
export const TaskId = Schema.String.pipe(Schema.brand("TaskId"))
export type TaskId = typeof TaskId.Type

export const TaskState = Schema.Literal("QUEUED", "RUNNING", "DONE", "ERROR", "CANCELLED")
export type TaskState = typeof TaskState.Type

/** States a task never leaves (until it is cleaned). */
export const isFinished = (state: TaskState) => state === "DONE" || state === "ERROR" || state === "CANCELLED"

/** A durable task, as the engine stores it and the RPC API returns it. */
export class Task extends Schema.Class<Task>("Task")({
  id: TaskId,
  /** `<runner type>@<id>`, e.g. `org.icij.datashare.tasks.IndexTask@<id>`; the legacy API's task id. */
  name: Schema.String,
  kind: Schema.String,
  /** The owner's login. */
  userId: Schema.String,
  state: TaskState,
  /** A fraction between 0 and 1; null while unknown. */
  progress: Schema.NullOr(Schema.Number),
  payload: Schema.Unknown,
  result: Schema.Unknown,
  error: Schema.NullOr(Schema.String),
  checkpoint: Schema.Unknown,
  attempts: Schema.Number,
  createdAt: Schema.Date,
  startedAt: Schema.NullOr(Schema.Date),
  finishedAt: Schema.NullOr(Schema.Date)
}) {}

/** A result that is a file (a batch download's zip): the legacy API serves it as an attachment. */
export const TaskFile = Schema.TaggedStruct("TaskFile", { path: Schema.String })
export type TaskFile = typeof TaskFile.Type

export const isTaskFile = Schema.is(TaskFile)

/** The name of a task: the reference's runner type, `@`, the id. */
export const taskName = (runnerType: string, id: TaskId) => `${runnerType}@${id}`

/** The id a task name ends with (names are `<runner type>@<id>` and ids contain no `@`). */
export const idOfName = (name: string): TaskId => TaskId.make(name.slice(name.lastIndexOf("@") + 1))

/** A row of the `tasks` table as the driver returns it. */
export interface TaskRow {
  readonly id: string
  readonly name: string
  readonly kind: string
  readonly user_id: string
  readonly state: TaskState
  readonly progress: number | null
  readonly payload: unknown
  readonly result: unknown
  readonly error: string | null
  readonly checkpoint: unknown
  readonly attempts: number
  readonly created_at: Date
  readonly started_at: Date | null
  readonly finished_at: Date | null
}

/** Rows come from a table whose constraints already hold the schema, so they are not validated again. */
export const taskFromRow = (row: TaskRow): Task =>
  new Task(
    {
      id: TaskId.make(row.id),
      name: row.name,
      kind: row.kind,
      userId: row.user_id,
      state: row.state,
      // NaN means unknown, as null does; JSON has no NaN.
      progress: row.progress === null || Number.isNaN(row.progress) ? null : row.progress,
      payload: row.payload,
      result: row.result,
      error: row.error,
      checkpoint: row.checkpoint,
      attempts: row.attempts,
      createdAt: row.created_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at
    },
    { disableValidation: true }
  )

/** The columns every task query selects. */
export const taskColumns =
  "id, name, kind, user_id, state, progress, payload, result, error, checkpoint, attempts, created_at, started_at, finished_at"
