import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { recordAction } from "./Activity.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { ReviewFieldInvalid, ReviewWriteForbidden } from "./ReviewErrors.ts"

const recordAccess = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [record] = yield* sql<{ taskStatus: string; reviewer: boolean }>`
      SELECT t.status AS "taskStatus",
        EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.checker_id = ${userId}) AS reviewer
      FROM review_task_records r JOIN review_tasks t ON t.id = r.task_id WHERE r.id = ${recordId}`
    return record
  }).pipe(dieOnSqlError)

const notReviewer = () => new ReviewWriteForbidden({ reason: "You do not have permission to update this resource." })
const taskNotOpen = () =>
  new ReviewWriteForbidden({ reason: "You do not have permission to update a resource from a locked or closed task" })

/**
 * A checker acts on a record (lock, bookmark) only when they hold a review of it (task membership is not
 * enough) and while its task is OPEN.
 */
export const checkRecordAccess = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const record = yield* recordAccess(recordId, userId)
    if (record === undefined || !record.reviewer) return yield* notReviewer()
    if (record.taskStatus !== "OPEN") return yield* taskNotOpen()
  })

/** A checker reads a record's detail under the same rules; a record that does not exist is left to the read's 404. */
export const checkRecordReading = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const record = yield* recordAccess(recordId, userId)
    if (record !== undefined && !record.reviewer) return yield* notReviewer()
    if (record !== undefined && record.taskStatus !== "OPEN") return yield* taskNotOpen()
  })

/**
 * Locks a record for one of its reviewers. A single conditional update, so that of two checkers racing for the
 * same record exactly one wins and the other finds it locked.
 */
const lockRecord = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* sql`
      UPDATE review_task_records r SET locked = true, locked_by_id = ${userId}
      WHERE r.id = ${recordId} AND NOT r.locked
        AND EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.checker_id = ${userId})
      RETURNING r.id`
    if (locked.length === 0) return yield* new ReviewFieldInvalid({ field: "locked", reason: "Cannot lock this task record" })
  }).pipe(dieOnSqlError)

/** Only the user who locked a record unlocks it (nobody else, staff included). */
const unlockRecord = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const unlocked = yield* sql`
      UPDATE review_task_records SET locked = false, locked_by_id = NULL
      WHERE id = ${recordId} AND locked AND locked_by_id = ${userId} RETURNING id`
    if (unlocked.length === 0) return yield* new ReviewFieldInvalid({ field: "locked", reason: "Cannot unlock this task record" })
  }).pipe(dieOnSqlError)

/** Adds or removes the user's bookmark; repeating either is harmless. */
const setBookmark = (recordId: number, userId: number, bookmarked: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* bookmarked
      ? sql`INSERT INTO review_task_record_bookmarks (task_record_id, user_id) VALUES (${recordId}, ${userId}) ON CONFLICT DO NOTHING`
      : sql`DELETE FROM review_task_record_bookmarks WHERE task_record_id = ${recordId} AND user_id = ${userId}`
  }).pipe(dieOnSqlError)

const recordTarget = (recordId: number) => ({ type: "TaskRecord", id: recordId })

/** A reviewer locks or unlocks a record (run after `checkRecordAccess`), recorded as `locked` or `unlocked`. */
export const setRecordLock = (recordId: number, userId: number, locked: boolean) =>
  Effect.zipRight(
    locked ? lockRecord(recordId, userId) : unlockRecord(recordId, userId),
    recordAction({ verb: locked ? "locked" : "unlocked", actorId: userId, target: recordTarget(recordId) })
  )

/** A reviewer adds or removes their bookmark (run after `checkRecordAccess`), recorded as `bookmarked` or `unbookmarked`. */
export const setRecordBookmark = (recordId: number, userId: number, bookmarked: boolean) =>
  Effect.zipRight(
    setBookmark(recordId, userId, bookmarked),
    recordAction({ verb: bookmarked ? "bookmarked" : "unbookmarked", actorId: userId, target: recordTarget(recordId) })
  )
