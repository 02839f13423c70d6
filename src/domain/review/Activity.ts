import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { ReviewOutcome } from "./ReviewChange.ts"

/** A polymorphic reference: the resource type name and the row id. */
export interface Reference {
  readonly type: string
  readonly id: number
}

export interface ActionRecord {
  readonly verb: string
  readonly actorId: number
  readonly target: Reference
  readonly actionObject?: Reference
  /** snake_case keys, as clients read them; `task_id` makes the action count in the daily aggregates. */
  readonly data?: Readonly<Record<string, unknown>>
}

/**
 * Counts an action in its user's daily aggregate for the task (UTC date). The first count of a day records a
 * `created-aggregate` action.
 */
const countInAggregate = (verb: string, userId: number, taskId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const created = yield* sql<{ id: number }>`
      INSERT INTO review_action_aggregates (verb, date, user_id, task_id) VALUES (${verb}, (now() AT TIME ZONE 'UTC')::date, ${userId}, ${taskId})
      ON CONFLICT (verb, date, user_id, task_id) DO NOTHING RETURNING id`
    yield* sql`
      UPDATE review_action_aggregates SET count = count + 1
      WHERE verb = ${verb} AND date = (now() AT TIME ZONE 'UTC')::date AND user_id = ${userId} AND task_id = ${taskId}`
    if (created[0] !== undefined)
      yield* recordAction({ verb: "created-aggregate", actorId: userId, target: { type: "ActionAggregate", id: created[0].id } })
  })

/** Records a public action (in the caller's transaction) and answers its id. */
export const recordAction = (action: ActionRecord): Effect.Effect<number, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: number }>`
      INSERT INTO review_actions (verb, actor_id, target_type, target_id, action_object_type, action_object_id, data)
      VALUES (${action.verb}, ${action.actorId}, ${action.target.type}, ${action.target.id}, ${action.actionObject?.type ?? null},
        ${action.actionObject?.id ?? null}, ${action.data === undefined ? null : JSON.stringify(action.data)})
      RETURNING id`
    const taskId = action.data?.task_id
    if (typeof taskId === "number") yield* countInAggregate(action.verb, action.actorId, taskId)
    return row!.id
  }).pipe(dieOnSqlError)

/**
 * The actions of a review update: `reviewed` or `cancelled` when the choice was sent, `selected` for a
 * non-empty alternative value, `commented` whenever a note was sent (even unchanged or empty).
 */
export const recordReviewActivity = (actorId: number, { review, change }: ReviewOutcome) =>
  Effect.gen(function* () {
    const target = { type: "TaskRecordReview", id: review.id }
    const taskId = review.taskId
    if (change.choiceId !== undefined) {
      yield* change.choiceId === null
        ? recordAction({ verb: "cancelled", actorId, target, data: { task_id: taskId } })
        : recordAction({
            verb: "reviewed",
            actorId,
            target,
            actionObject: { type: "Choice", id: change.choiceId },
            data: { task_id: taskId }
          })
    }
    if (typeof change.alternativeValue === "string" && change.alternativeValue !== "") {
      yield* recordAction({ verb: "selected", actorId, target, data: { alternative_value: change.alternativeValue, task_id: taskId } })
    }
    if (change.note !== undefined) yield* recordAction({ verb: "commented", actorId, target, data: { note: change.note, task_id: taskId } })
  }).pipe(dieOnSqlError)
