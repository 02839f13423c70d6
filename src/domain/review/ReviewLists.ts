import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { ReviewUser } from "./ReviewUser.ts"

/** A record of a task as the RPC API lists it; `bookmarked` is the caller's bookmark. */
export interface RecordRow {
  readonly id: number
  readonly taskId: number
  readonly uid: string | null
  readonly originalValue: string | null
  readonly predictedValue: string | null
  readonly metadata: unknown
  readonly status: "UNASSIGNED" | "ASSIGNED" | "DONE"
  readonly rounds: number
  readonly priority: number
  readonly locked: boolean
  readonly lockedById: number | null
  readonly bookmarked: boolean
}

/** A review of a record as the RPC API lists it. */
export interface ReviewRow {
  readonly id: number
  readonly taskId: number
  readonly taskRecordId: number
  readonly checkerId: number | null
  readonly round: number
  readonly status: "PENDING" | "DONE"
  readonly choiceId: number | null
  readonly note: string | null
  readonly alternativeValue: string | null
}

/** Which reviews to list; a checker's list holds only their own reviews whatever `checkerId` says. */
export interface ReviewSelection {
  readonly taskId?: number | undefined
  readonly taskRecordId?: number | undefined
  readonly checkerId?: number | undefined
  readonly status?: "PENDING" | "DONE" | undefined
}

const recordColumns = (sql: SqlClient.SqlClient, userId: number) => sql`r.id, r.task_id AS "taskId", r.uid,
  r.original_value AS "originalValue", r.predicted_value AS "predictedValue", r.metadata, r.status, r.rounds, r.priority,
  r.locked, r.locked_by_id AS "lockedById",
  EXISTS (SELECT 1 FROM review_task_record_bookmarks b WHERE b.task_record_id = r.id AND b.user_id = ${userId}) AS bookmarked`

const reviewColumns = `v.id, rec.task_id AS "taskId", v.task_record_id AS "taskRecordId", v.checker_id AS "checkerId", v.round,
  v.status, v.choice_id AS "choiceId", v.note, v.alternative_value AS "alternativeValue"`

/**
 * Whether the user sees the task's records, as the review API scopes records: staff all tasks, checkers the tasks
 * they check (records hold document text; issue 22).
 */
export const taskRecordsVisible = (taskId: number, user: ReviewUser) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT 1 FROM review_tasks t WHERE t.id = ${taskId} AND (${user.isStaff} OR t.id IN (
        SELECT k.task_id FROM review_task_checkers k WHERE k.checker_id = ${user.id}))`
    return rows.length > 0
  }).pipe(dieOnSqlError)

/** A page of a task's records in id order, after `afterId`. */
export const recordPage = (taskId: number, user: ReviewUser, afterId: number, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<RecordRow>`SELECT ${recordColumns(sql, user.id)} FROM review_task_records r
      WHERE r.task_id = ${taskId} AND r.id > ${afterId} ORDER BY r.id LIMIT ${limit}`
  ).pipe(dieOnSqlError)

export const recordById = (id: number, user: ReviewUser) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<RecordRow>`SELECT ${recordColumns(sql, user.id)} FROM review_task_records r WHERE r.id = ${id}`
  ).pipe(
    Effect.map((rows) => rows[0]),
    dieOnSqlError
  )

/** A page of reviews in id order, after `afterId`; reviews without a record are out, as in the review API's lists. */
export const reviewPage = (selection: ReviewSelection, user: ReviewUser, afterId: number, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const checker = user.isStaff ? selection.checkerId : user.id
    const conditions = sql.and([
      sql`v.id > ${afterId}`,
      checker === undefined ? sql`TRUE` : sql`v.checker_id = ${checker}`,
      selection.taskId === undefined ? sql`TRUE` : sql`rec.task_id = ${selection.taskId}`,
      selection.taskRecordId === undefined ? sql`TRUE` : sql`v.task_record_id = ${selection.taskRecordId}`,
      selection.status === undefined ? sql`TRUE` : sql`v.status = ${selection.status}`
    ])
    return yield* sql<ReviewRow>`SELECT ${sql.literal(reviewColumns)} FROM review_task_record_reviews v
      JOIN review_task_records rec ON rec.id = v.task_record_id WHERE ${conditions} ORDER BY v.id LIMIT ${limit}`
  }).pipe(dieOnSqlError)

/** A review the user may see (as the review API scopes them: staff all, checkers those of tasks they check). */
export const visibleReview = (id: number, user: ReviewUser) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<ReviewRow>`SELECT ${sql.literal(reviewColumns)} FROM review_task_record_reviews v
      JOIN review_task_records rec ON rec.id = v.task_record_id
      WHERE v.id = ${id} AND (${user.isStaff} OR rec.task_id IN (SELECT task_id FROM review_task_checkers WHERE checker_id = ${user.id}))`
    return rows[0]
  }).pipe(dieOnSqlError)
