import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { recordAction } from "./Activity.ts"
import { notifyMentions } from "./Mentions.ts"

/** A saved tip records `created` or `updated` by its creator, and its description's mentions notify. */
export const recordTipSaved = (tipId: number, created: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [tip] = yield* sql<{ creatorId: number | null; taskId: number | null; projectId: number | null; description: string }>`
      SELECT creator_id AS "creatorId", task_id AS "taskId", project_id AS "projectId", description FROM review_tips WHERE id = ${tipId}`
    if (tip === undefined || tip.creatorId === null) return
    const object = { type: "Tip", id: tipId }
    yield* recordAction({ verb: created ? "created" : "updated", actorId: tip.creatorId, target: object })
    yield* notifyMentions(tip.creatorId, { object, taskId: tip.taskId, projectId: tip.projectId }, tip.description)
  }).pipe(dieOnSqlError)

/** A task whose status changed records `locked`, `closed` or `open` by its creator, when it has one. */
export const recordTaskStatusChange = (taskId: number, previousStatus: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [task] = yield* sql<{
      creatorId: number | null
      status: string
    }>`SELECT creator_id AS "creatorId", status FROM review_tasks WHERE id = ${taskId}`
    if (task === undefined || task.creatorId === null || task.status === previousStatus) return
    yield* recordAction({ verb: task.status.toLowerCase(), actorId: task.creatorId, target: { type: "Task", id: taskId } })
  }).pipe(dieOnSqlError)
