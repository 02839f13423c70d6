import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ReviewFieldInvalid, ReviewWriteForbidden } from "./ReviewErrors.ts"

/**
 * A checker acts on a record (lock, bookmark) only when they hold a review of it (task membership is not
 * enough) and while its task is OPEN.
 */
export const checkRecordAccess = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [record] = yield* sql<{ taskStatus: string; reviewer: boolean }>`
      SELECT t.status AS "taskStatus",
        EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.checker_id = ${userId}) AS reviewer
      FROM review_task_records r JOIN review_tasks t ON t.id = r.task_id WHERE r.id = ${recordId}`
    if (record === undefined || !record.reviewer) return yield* new ReviewWriteForbidden({ reason: "You do not have permission to update this resource." })
    if (record.taskStatus !== "OPEN") return yield* new ReviewWriteForbidden({ reason: "You do not have permission to update a resource from a locked or closed task" })
  })

/**
 * Locks a record for one of its reviewers. A single conditional update, so that of two checkers racing for the
 * same record exactly one wins and the other finds it locked.
 */
export const lockRecord = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* sql`
      UPDATE review_task_records r SET locked = true, locked_by_id = ${userId}
      WHERE r.id = ${recordId} AND NOT r.locked
        AND EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = r.id AND v.checker_id = ${userId})
      RETURNING r.id`
    if (locked.length === 0) return yield* new ReviewFieldInvalid({ field: "locked", reason: "Cannot lock this task record" })
  })

/** Only the user who locked a record unlocks it (nobody else, staff included). */
export const unlockRecord = (recordId: number, userId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const unlocked = yield* sql`
      UPDATE review_task_records SET locked = false, locked_by_id = NULL
      WHERE id = ${recordId} AND locked AND locked_by_id = ${userId} RETURNING id`
    if (unlocked.length === 0) return yield* new ReviewFieldInvalid({ field: "locked", reason: "Cannot unlock this task record" })
  })

/** Adds or removes the user's bookmark; repeating either is harmless. */
export const setBookmark = (recordId: number, userId: number, bookmarked: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* bookmarked
      ? sql`INSERT INTO review_task_record_bookmarks (task_record_id, user_id) VALUES (${recordId}, ${userId}) ON CONFLICT DO NOTHING`
      : sql`DELETE FROM review_task_record_bookmarks WHERE task_record_id = ${recordId} AND user_id = ${userId}`
  })
