import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import type { Reference } from "./Activity.ts"

/** `@name`: letters and digits, 1 to 15 of them. */
const mentionPattern = /@([A-Za-z0-9]{1,15})(?![A-Za-z0-9])/g

export const mentionedNames = (text: string) => [...new Set([...text.matchAll(mentionPattern)].map((match) => match[1]!))]

/** The users a name designates: `@project` every checker of the project, `@task` the task's checkers (both
 * without the author), otherwise the user with that username (the author included). */
const recipientsOf = (name: string, authorId: number, place: Place) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows =
      name.toLowerCase() === "project"
        ? yield* sql<{ id: number }>`
            SELECT DISTINCT c.checker_id AS id FROM review_task_checkers c JOIN review_tasks t ON t.id = c.task_id
            WHERE t.project_id = coalesce(${place.projectId}::int, (SELECT project_id FROM review_tasks WHERE id = ${place.taskId}::int))
              AND c.checker_id <> ${authorId}`
        : name.toLowerCase() === "task"
          ? yield* sql<{
              id: number
            }>`SELECT checker_id AS id FROM review_task_checkers WHERE task_id = ${place.taskId}::int AND checker_id <> ${authorId}`
          : yield* sql<{ id: number }>`SELECT id FROM users WHERE login = ${name}`
    return rows.map((row) => row.id)
  })

/** Where a mentioning text lives: the review or tip, and the task and project `@task` and `@project` mean. */
export interface Place {
  readonly object: Reference
  readonly taskId: number | null
  readonly projectId: number | null
}

/**
 * Notifies the users a review's note or a tip's description mentions: a `mentioned` action and an unread
 * notification, once per (author, mentioned user, review or tip) whatever the number of saves. Unknown names
 * are ignored.
 */
export const notifyMentions = (authorId: number, place: Place, text: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const recipients = new Set<number>()
    for (const name of mentionedNames(text)) for (const id of yield* recipientsOf(name, authorId, place)) recipients.add(id)
    for (const recipient of recipients) {
      const [action] = yield* sql<{ id: number }>`
        INSERT INTO review_actions (verb, actor_id, target_type, target_id, action_object_type, action_object_id, data)
        VALUES ('mentioned', ${authorId}, 'User', ${recipient}, ${place.object.type}, ${place.object.id}, '{}'::jsonb)
        ON CONFLICT (actor_id, target_id, action_object_type, action_object_id) WHERE verb = 'mentioned' DO NOTHING
        RETURNING id`
      if (action !== undefined)
        yield* sql`INSERT INTO review_user_notifications (recipient_id, action_id) VALUES (${recipient}, ${action.id})`
    }
  }).pipe(dieOnSqlError)
