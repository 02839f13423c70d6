import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { refreshRecords } from "./RecordState.ts"
import { AttributionRefused } from "./ReviewErrors.ts"

export interface AttributionRequest {
  readonly recordId: number
  readonly checkerId: number
  /** Omitted: one more than the highest round already on the record. */
  readonly round?: number
}

/**
 * Gives a record to a checker for a round (creates a PENDING review), with the admin rules of the reference:
 * the checker must check the record's task; without `allow_multiple_checks` a checker holds at most one review
 * of a record, with it only the (record, checker, round) triple must be new; a record never gets more reviews
 * than its task's rounds. Callers run it inside their transaction.
 */
export const attribute = (request: AttributionRequest) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [context] = yield* sql<{
      taskName: string
      rounds: number
      allowMultipleChecks: boolean
      isChecker: boolean
      login: string
      reviews: number
      maxRound: number
      alreadyAny: boolean
    }>`
      SELECT t.name AS "taskName", t.rounds, t.allow_multiple_checks AS "allowMultipleChecks",
        EXISTS (SELECT 1 FROM review_task_checkers c WHERE c.task_id = t.id AND c.checker_id = ${request.checkerId}) AS "isChecker",
        (SELECT login FROM users WHERE id = ${request.checkerId}) AS login,
        (SELECT count(*)::int FROM review_task_record_reviews v WHERE v.task_record_id = r.id) AS reviews,
        (SELECT coalesce(max(v.round), 0) FROM review_task_record_reviews v WHERE v.task_record_id = r.id) AS "maxRound",
        EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.checker_id = ${request.checkerId}) AS "alreadyAny"
      FROM review_task_records r JOIN review_tasks t ON t.id = r.task_id
      WHERE r.id = ${request.recordId}
      FOR UPDATE OF r`
    if (context === undefined) return yield* new AttributionRefused({ reason: `Task record #${request.recordId} does not exist` })
    const round = request.round ?? context.maxRound + 1
    if (!context.isChecker)
      return yield* new AttributionRefused({ reason: `${context.login} is not a checker for the task ${context.taskName}` })
    if (!context.allowMultipleChecks && context.alreadyAny) {
      return yield* new AttributionRefused({ reason: `Task record #${request.recordId} was already attributed to ${context.login} before` })
    }
    const sameRound = yield* sql`
      SELECT 1 FROM review_task_record_reviews WHERE task_record_id = ${request.recordId} AND checker_id = ${request.checkerId} AND round = ${round}`
    if (sameRound.length > 0) {
      return yield* new AttributionRefused({
        reason: `Task record #${request.recordId} was already attributed to ${context.login} in round ${round}`
      })
    }
    if (context.reviews >= context.rounds) {
      return yield* new AttributionRefused({ reason: `Task record #${request.recordId} cannot get more than ${context.rounds} reviews` })
    }
    const [created] = yield* sql<{ id: number }>`
      INSERT INTO review_task_record_reviews (task_record_id, checker_id, round) VALUES (${request.recordId}, ${request.checkerId}, ${round})
      RETURNING id`
    yield* refreshRecords([request.recordId])
    return created!.id
  }).pipe(dieOnSqlError)

/**
 * With `automatic_round_attributions` on, new records of a task go to its checkers, one round each in checker
 * order, as far as the task's rounds allow.
 */
export const attributeAutomatically = (taskId: number, recordIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    if (recordIds.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const [task] = yield* sql<{ automatic: boolean; rounds: number }>`
      SELECT automatic_round_attributions AS automatic, rounds FROM review_tasks WHERE id = ${taskId}`
    if (task === undefined || !task.automatic) return
    const checkers = yield* sql<{
      id: number
    }>`SELECT checker_id AS id FROM review_task_checkers WHERE task_id = ${taskId} ORDER BY checker_id`
    const assigned = checkers.slice(0, task.rounds)
    if (assigned.length === 0) return
    yield* sql`
      INSERT INTO review_task_record_reviews (task_record_id, checker_id, round)
      SELECT record.id, checker.id, checker.round
      FROM unnest(${recordIds}::int[]) AS record (id),
        unnest(${assigned.map((checker) => checker.id)}::int[]) WITH ORDINALITY AS checker (id, round)
      ON CONFLICT DO NOTHING`
    yield* refreshRecords(recordIds)
  }).pipe(dieOnSqlError)

/** Deletes a review (staff); its record's status and flags are recomputed. Callers run it inside their transaction. */
export const removeReview = (reviewId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ recordId: number | null }>`
      DELETE FROM review_task_record_reviews WHERE id = ${reviewId} RETURNING task_record_id AS "recordId"`
    yield* refreshRecords(rows.flatMap((row) => (row.recordId === null ? [] : [row.recordId])))
  }).pipe(dieOnSqlError)
