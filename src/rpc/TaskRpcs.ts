import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { Task } from "../domain/task/Task.ts"
import { TaskForbidden, TaskNotFinished, TaskNotFound } from "../domain/task/TaskErrors.ts"

/** A task's id, or its name (`<runner type>@<id>`, as the legacy API shows it). */
const TaskRef = Schema.String

const TaskAccessError = Schema.Union(TaskNotFound, TaskForbidden)

/**
 * The task API for internal tools, served at `/rpc`. Every call acts as the authenticated caller: the tasks are
 * the caller's own. Part of `QuarryRpcs`, which `src/rpc/client.ts` builds a typed client of.
 */
export class TaskRpcs extends RpcGroup.make(
  Rpc.make("listTasks", {
    payload: { filter: Schema.optional(Schema.String) },
    success: Schema.Array(Task)
  }),
  Rpc.make("getTask", { payload: { id: TaskRef }, success: Task, error: TaskAccessError }),
  /** True if the task was cancelled, false if it had already finished. */
  Rpc.make("stopTask", { payload: { id: TaskRef }, success: Schema.Boolean, error: TaskAccessError }),
  /** The caller's tasks that were queued or running, now cancelled. */
  Rpc.make("stopAll", { success: Schema.Array(Task) }),
  /** The task now, then at each change of state or progress; the stream ends with the task's final state. */
  Rpc.make("watchTasks", { payload: { id: TaskRef }, success: Task, error: TaskAccessError, stream: true }),
  /**
   * Several tasks (`ids`), or all the caller's tasks including those started later (no `ids`): each as it is now,
   * then at each change of state or progress. With `ids` the stream ends once all of them have finished.
   */
  Rpc.make("watchManyTasks", {
    payload: { ids: Schema.optional(Schema.Array(TaskRef).pipe(Schema.maxItems(1_000))) },
    success: Task,
    error: TaskAccessError,
    stream: true
  }),
  /** Removes one finished task and returns it; a task still queued or running is refused (TaskNotFinished). */
  Rpc.make("cleanTask", { payload: { id: TaskRef }, success: Task, error: Schema.Union(TaskNotFound, TaskForbidden, TaskNotFinished) }),
  /** Removes the caller's finished tasks (DONE, ERROR, CANCELLED) and returns them. */
  Rpc.make("cleanFinishedTasks", { success: Schema.Array(Task) })
) {}
