/** The single-row checks of review reads: who may see a record or a media file, whose a notification is. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { ReviewUser } from "./ReviewUser.ts"

/** The tasks a checker sees records of; staff see every task's. */
const visibleTasks = (sql: SqlClient.SqlClient, user: ReviewUser) =>
  user.isStaff ? sql`TRUE` : sql`task_id IN (SELECT task_id FROM review_task_checkers WHERE checker_id = ${user.id})`

/** Whether the record exists and the user sees it (staff, or a checker of its task). */
export const recordVisible = (recordId: number, user: ReviewUser) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return (yield* sql`SELECT 1 FROM review_task_records WHERE id = ${recordId} AND ${visibleTasks(sql, user)}`).length > 0
  }).pipe(dieOnSqlError)

/** A media file the user sees (as its record), undefined otherwise. */
export const visibleMedia = (mediaId: number, user: ReviewUser) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [media] = yield* sql<{ file: string; mimeType: string }>`
      SELECT file, mime_type AS "mimeType" FROM review_task_record_media WHERE id = ${mediaId} AND ${visibleTasks(sql, user)}`
    return media
  }).pipe(dieOnSqlError)

/** The recipient of a notification, undefined when there is no such notification. */
export const notificationRecipient = (notificationId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{
      recipientId: number
    }>`SELECT recipient_id AS "recipientId" FROM review_user_notifications WHERE id = ${notificationId}`
    return row?.recipientId
  }).pipe(dieOnSqlError)

/** A user's id from their id or their username, undefined for nobody. */
export const userIdOf = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [user] = yield* /^\d{1,9}$/.test(key)
      ? sql<{ id: number }>`SELECT id FROM users WHERE id = ${Number(key)}`
      : sql<{ id: number }>`SELECT id FROM users WHERE login = ${key}`
    return user?.id
  }).pipe(dieOnSqlError)
