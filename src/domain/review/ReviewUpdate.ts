import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { recordReviewActivity } from "./Activity.ts"
import { notifyMentions } from "./Mentions.ts"
import { refreshRecords } from "./RecordState.ts"
import type { ReviewChange, ReviewOutcome, ReviewState } from "./ReviewChange.ts"
import { ReviewFieldInvalid, ReviewNotFound, ReviewWriteForbidden } from "./ReviewErrors.ts"

export const notYourReview = "You do not have permission to update this resource."

/** A review that has a record (orphaned reviews are out of every list), locked for the rest of the transaction. */
export const loadReview = (reviewId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<ReviewState>`
      SELECT v.id, v.checker_id AS "checkerId", v.task_record_id AS "recordId", rec.task_id AS "taskId", t.status AS "taskStatus",
        rec.locked AS "recordLocked", t.choice_group_id AS "choiceGroupId", v.choice_id AS "choiceId", v.note,
        v.note_created_at AS "noteCreatedAt", v.alternative_value AS "alternativeValue"
      FROM review_task_record_reviews v
      JOIN review_task_records rec ON rec.id = v.task_record_id
      JOIN review_tasks t ON t.id = rec.task_id
      WHERE v.id = ${reviewId}
      FOR UPDATE OF v, rec`
    return row
  }).pipe(dieOnSqlError)

/**
 * The rules of a checker's review update, in the reference's order: only the review's checker; a choice (set or
 * cancelled) only while the task is OPEN and the record unlocked; the choice must be one of the task's choice
 * group; a choice that requires an alternative value gets one.
 */
export const checkReviewChange = (requesterId: number, review: ReviewState, change: ReviewChange) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (review.checkerId !== requesterId) return yield* new ReviewWriteForbidden({ reason: notYourReview })
    if (change.choiceId !== undefined) {
      if (review.taskStatus !== "OPEN") return yield* new ReviewWriteForbidden({ reason: "This resource's task was locked by a user." })
      if (review.recordLocked) return yield* new ReviewWriteForbidden({ reason: "This resource was locked by a user." })
    }
    // Only a change of the choice or of the alternative value meets the choice rules; a note alone never does.
    if (change.choiceId === undefined && change.alternativeValue === undefined) return
    const choiceId = change.choiceId === undefined ? review.choiceId : change.choiceId
    if (choiceId === null) return
    const [choice] = yield* sql<{ requireAlternativeValue: boolean }>`
      SELECT require_alternative_value AS "requireAlternativeValue" FROM review_choices
      WHERE id = ${choiceId} AND choice_group_id IS NOT DISTINCT FROM ${review.choiceGroupId}`
    if (choice === undefined) {
      return yield* new ReviewFieldInvalid({ field: "choice", reason: `Invalid pk "${choiceId}" - object does not exist.` })
    }
    const alternativeValue = change.alternativeValue === undefined ? review.alternativeValue : change.alternativeValue
    if (choice.requireAlternativeValue && (alternativeValue ?? "").trim() === "") {
      return yield* new ReviewFieldInvalid({ field: "alternativeValue", reason: "This choice requires an alternative value." })
    }
  }).pipe(dieOnSqlError)

/**
 * Writes a checked change: the status follows the choice, the note's creation time is stamped when it first
 * becomes non-empty and its update time on every later change of its text; then the record's status, rounds
 * and flags are recomputed. Callers run it in their transaction.
 */
export const applyReviewChange = (review: ReviewState, change: ReviewChange) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = new Date()
    const columns: Record<string, unknown> = { updated_at: now }
    if (change.choiceId !== undefined) {
      columns.choice_id = change.choiceId
      columns.status = change.choiceId === null ? "PENDING" : "DONE"
    }
    if (change.alternativeValue !== undefined) columns.alternative_value = change.alternativeValue
    if (change.note !== undefined && change.note !== review.note) {
      columns.note = change.note
      if (review.noteCreatedAt !== null) columns.note_updated_at = now
      else if ((change.note ?? "") !== "") columns.note_created_at = now
    }
    yield* sql`UPDATE review_task_record_reviews SET ${sql.update(columns)} WHERE id = ${review.id}`
    yield* refreshRecords([review.recordId])
    return { review, change } satisfies ReviewOutcome
  }).pipe(dieOnSqlError)

const lockedReview = (reviewId: number) =>
  Effect.flatMap(loadReview(reviewId), (review) =>
    review === undefined ? Effect.fail(new ReviewNotFound({ resource: "TaskRecordReview", id: reviewId })) : Effect.succeed(review)
  )

/**
 * Saves a change already checked (bulk operations check every change first) with its recomputations, its actions
 * and the mentions of its note, in the caller's transaction.
 */
export const saveReviewChange = (requesterId: number, reviewId: number, change: ReviewChange) =>
  Effect.gen(function* () {
    const review = yield* lockedReview(reviewId)
    yield* recordReviewActivity(requesterId, yield* applyReviewChange(review, change))
    const place = { object: { type: "TaskRecordReview", id: review.id }, taskId: review.taskId, projectId: null }
    if (typeof change.note === "string") yield* notifyMentions(requesterId, place, change.note)
  })

/** A checker's change of their review, checked then saved, in the caller's transaction. */
export const changeReview = (requesterId: number, reviewId: number, change: ReviewChange) =>
  Effect.gen(function* () {
    yield* checkReviewChange(requesterId, yield* lockedReview(reviewId), change)
    yield* saveReviewChange(requesterId, reviewId, change)
  })
