import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** No task has that name or id. */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()(
  "TaskNotFound",
  { task: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `task ${this.task} not found`
  }
}

/** The task belongs to another user: users see, stop and clean only their own tasks. */
export class TaskForbidden extends Schema.TaggedError<TaskForbidden>()(
  "TaskForbidden",
  { task: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return `task ${this.task} belongs to another user`
  }
}

/** Cleaning a task that has not finished (the reference answers 403). */
export class TaskNotFinished extends Schema.TaggedError<TaskNotFinished>()(
  "TaskNotFinished",
  { task: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return `task ${this.task} is still running`
  }
}
