import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import { type TaskId, type TaskRow, taskColumns, taskFromRow } from "./Task.ts"

/** Reads and removals of task records; the engine's state transitions are in src/engine/JobQueue.ts. */
export class TaskRepo extends Effect.Service<TaskRepo>()("quarry/TaskRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(taskColumns)

    const findById = Effect.fn("TaskRepo.findById")(function* (id: TaskId) {
      const rows = yield* sql<TaskRow>`SELECT ${columns} FROM tasks WHERE id = ${id}`
      return Option.map(Option.fromNullable(rows[0]), taskFromRow)
    })

    const listByUser = Effect.fn("TaskRepo.listByUser")(function* (userId: string) {
      const rows = yield* sql<TaskRow>`SELECT ${columns} FROM tasks WHERE user_id = ${userId} ORDER BY created_at, id`
      return rows.map(taskFromRow)
    })

    const deleteFinishedOf = Effect.fn("TaskRepo.deleteFinishedOf")(function* (userId: string) {
      const rows = yield* sql<TaskRow>`DELETE FROM tasks
        WHERE user_id = ${userId} AND state IN ('DONE', 'ERROR', 'CANCELLED')
        RETURNING ${columns}`
      return rows.map(taskFromRow)
    })

    /** Removes the task if it has finished; none when it is unknown or still queued or running. */
    const deleteIfFinished = Effect.fn("TaskRepo.deleteIfFinished")(function* (id: TaskId) {
      const rows = yield* sql<TaskRow>`DELETE FROM tasks
        WHERE id = ${id} AND state IN ('DONE', 'ERROR', 'CANCELLED')
        RETURNING ${columns}`
      return Option.map(Option.fromNullable(rows[0]), taskFromRow)
    })

    return dieOnSqlErrors({ findById, listByUser, deleteFinishedOf, deleteIfFinished })
  })
}) {}
