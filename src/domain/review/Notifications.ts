import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"

/** Marks a notification read or unread; the first time it is read stamps `read_at`, unreading keeps it. */
export const markNotification = (id: number, read: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      UPDATE review_user_notifications SET read = ${read}, read_at = CASE WHEN ${read} AND read_at IS NULL THEN now() ELSE read_at END
      WHERE id = ${id}`
  }).pipe(dieOnSqlError)
