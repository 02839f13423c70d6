import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"

/**
 * Recomputes what a record derives from its reviews: status (UNASSIGNED without review, DONE once the DONE
 * reviews reach the task's rounds, else ASSIGNED), rounds (highest review round), has_notes and
 * has_disagreements (more than one distinct chosen choice). Run after every review change, deletions included.
 */
export const refreshRecords = (recordIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    if (recordIds.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      WITH s AS (
        SELECT rec.id, t.rounds AS task_rounds, count(v.id) AS total, count(v.id) FILTER (WHERE v.status = 'DONE') AS done,
          coalesce(max(v.round), 0) AS max_round, count(v.id) FILTER (WHERE coalesce(v.note, '') <> '') AS notes,
          count(DISTINCT v.choice_id) AS choices
        FROM review_task_records rec
        JOIN review_tasks t ON t.id = rec.task_id
        LEFT JOIN review_task_record_reviews v ON v.task_record_id = rec.id
        WHERE rec.id = ANY(${[...new Set(recordIds)]}::int[])
        GROUP BY rec.id, t.rounds
      )
      UPDATE review_task_records r SET
        status = CASE WHEN s.total = 0 THEN 'UNASSIGNED' WHEN s.done >= s.task_rounds THEN 'DONE' ELSE 'ASSIGNED' END,
        rounds = s.max_round,
        has_notes = s.notes > 0,
        has_disagreements = s.choices > 1
      FROM s WHERE s.id = r.id`
  }).pipe(dieOnSqlError)
