import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"

/** A stored batch-search result, with whether it is left out of the task. */
export interface HitRow {
  readonly query: string
  readonly docId: string
  readonly rootId: string
  readonly path: string
  readonly contentType: string | null
  readonly project: string
  readonly skip: boolean
}

/** A record about to be written. */
export interface NewRecord {
  readonly uid: string
  readonly originalValue: string
  readonly predictedValue: string | null
  readonly metadata: string
  readonly link: string | null
}

export interface NewTask {
  readonly name: string
  readonly description: string
  readonly projectId: number
  readonly creatorId: number
  readonly rounds: number
  readonly choiceGroupId: number
  readonly checkers: ReadonlyArray<number>
}

/** Which hits to read: queries (all when empty), the first N of each, and what is already reviewed. */
export interface HitSelection {
  readonly uuid: string
  readonly taskId: number | undefined
  readonly reviewProjectId: number
  readonly queries: ReadonlyArray<string>
  readonly maxHitsPerQuery: number
  readonly skipReviewed: boolean
}

/** SQL of the bridge between batch searches (migration 0040) and review tasks (migration 0030); its failures are defects. */
export class ReviewBridgeRepo extends Effect.Service<ReviewBridgeRepo>()("quarry/ReviewBridgeRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * The hits of a batch search in query then relevance order. A hit is skipped when the task already holds it
     * (same document and query) or, with skipReviewed, when its document has a finished review in the project.
     */
    const hits = Effect.fn("ReviewBridgeRepo.hits")(function* (selection: HitSelection) {
      return yield* sql<HitRow>`
        SELECT r.query, r.doc_id AS "docId", r.root_id AS "rootId", r.doc_path AS path, r.content_type AS "contentType",
          coalesce(r.prj_id, '') AS project,
          (EXISTS (SELECT 1 FROM review_task_records rec
              WHERE rec.task_id = ${selection.taskId ?? null}::int AND rec.uid = r.doc_id AND rec.original_value = r.query)
            OR (${selection.skipReviewed} AND EXISTS (
              SELECT 1 FROM review_task_records rec
              JOIN review_tasks t ON t.id = rec.task_id
              JOIN review_task_record_reviews v ON v.task_record_id = rec.id
              WHERE t.project_id = ${selection.reviewProjectId} AND rec.uid = r.doc_id AND v.status = 'DONE'))) AS skip
        FROM batch_search_results r
        WHERE r.search_uuid = ${selection.uuid}
          AND (cardinality(${selection.queries}::text[]) = 0 OR r.query = ANY(${selection.queries}::text[]))
          AND r.doc_nb < ${selection.maxHitsPerQuery}
        ORDER BY r.query_number, r.doc_nb`
    })

    /** The queries of a batch search. */
    const queries = Effect.fn("ReviewBridgeRepo.queries")(function* (uuid: string) {
      return (yield* sql<{ query: string }>`SELECT query FROM batch_search_queries WHERE search_uuid = ${uuid}`).map((row) => row.query)
    })

    /** The task's review project, the task row locked until the transaction ends (concurrent runs add hits once). */
    const lockTask = Effect.fn("ReviewBridgeRepo.lockTask")(function* (taskId: number) {
      return Arr.head(yield* sql<{ projectId: number }>`SELECT project_id AS "projectId" FROM review_tasks WHERE id = ${taskId} FOR UPDATE`)
    })

    const taskProject = Effect.fn("ReviewBridgeRepo.taskProject")(function* (taskId: number) {
      return Arr.head(yield* sql<{ projectId: number }>`SELECT project_id AS "projectId" FROM review_tasks WHERE id = ${taskId}`)
    })

    /** Ids among `ids` that have no row in `table`. */
    const missingIds = Effect.fn("ReviewBridgeRepo.missingIds")(function* (
      table: "review_projects" | "review_choice_groups" | "users",
      ids: ReadonlyArray<number>
    ) {
      const rows = yield* sql<{ id: number }>`
        SELECT wanted.id FROM unnest(${ids}::int[]) AS wanted (id)
        WHERE NOT EXISTS (SELECT 1 FROM ${sql.literal(table)} t WHERE t.id = wanted.id)`
      return rows.map((row) => row.id)
    })

    /** users.id by login, for callers that name checkers by login (the command line). */
    const userIds = Effect.fn("ReviewBridgeRepo.userIds")(function* (logins: ReadonlyArray<string>) {
      const rows = yield* sql<{ id: number; login: string }>`SELECT id, login FROM users WHERE login = ANY(${logins}::text[])`
      return new Map(rows.map((row) => [row.login, row.id] as const))
    })

    /** A task with its template setting (TEXT) and checkers, attributing its records automatically. */
    const insertTask = Effect.fn("ReviewBridgeRepo.insertTask")(function* (task: NewTask) {
      const [setting] = yield* sql<{ id: number }>`INSERT INTO review_template_settings (kind) VALUES ('TEXT') RETURNING id`
      const [created] = yield* sql<{ id: number }>`
        INSERT INTO review_tasks (name, description, project_id, creator_id, rounds, automatic_round_attributions, choice_group_id, template_setting_id)
        VALUES (${task.name}, ${task.description}, ${task.projectId}, ${task.creatorId}, ${task.rounds}, true, ${task.choiceGroupId}, ${setting!.id})
        RETURNING id`
      if (task.checkers.length > 0) {
        yield* sql`INSERT INTO review_task_checkers (task_id, checker_id) SELECT ${created!.id}, unnest(${[...new Set(task.checkers)]}::int[])`
      }
      return created!.id
    })

    /** Inserts the records a task does not hold yet (same document and query), in order; answers the new ids. */
    const insertRecords = Effect.fn("ReviewBridgeRepo.insertRecords")(function* (taskId: number, records: ReadonlyArray<NewRecord>) {
      if (records.length === 0) return []
      const column = <K extends keyof NewRecord>(key: K) => records.map((record) => record[key])
      const rows = yield* sql<{ id: number }>`
        INSERT INTO review_task_records (task_id, uid, original_value, predicted_value, metadata, link)
        SELECT ${taskId}, u.uid, u.original_value, u.predicted_value, u.metadata::jsonb, u.link
        FROM unnest(${column("uid")}::text[], ${column("originalValue")}::text[], ${column("predictedValue")}::text[],
          ${column("metadata")}::text[], ${column("link")}::text[]) WITH ORDINALITY AS u (uid, original_value, predicted_value, metadata, link, position)
        WHERE NOT EXISTS (SELECT 1 FROM review_task_records rec WHERE rec.task_id = ${taskId} AND rec.uid = u.uid AND rec.original_value = u.original_value)
        ORDER BY u.position
        RETURNING id`
      return rows.map((row) => row.id)
    })

    /**
     * Documents of the task's confirmed records: at least one finished review, and every finished review's choice
     * value among `values`. The document's project is the one its record's metadata names.
     */
    const confirmedDocuments = Effect.fn("ReviewBridgeRepo.confirmedDocuments")(function* (taskId: number, values: ReadonlyArray<string>) {
      return yield* sql<{ uid: string; project: string }>`
        SELECT rec.uid, rec.metadata->>'project' AS project
        FROM review_task_records rec
        WHERE rec.task_id = ${taskId} AND rec.uid IS NOT NULL AND jsonb_typeof(rec.metadata->'project') = 'string'
          AND EXISTS (SELECT 1 FROM review_task_record_reviews v WHERE v.task_record_id = rec.id AND v.status = 'DONE')
          AND NOT EXISTS (
            SELECT 1 FROM review_task_record_reviews v LEFT JOIN review_choices c ON c.id = v.choice_id
            WHERE v.task_record_id = rec.id AND v.status = 'DONE' AND (c.value IS NULL OR NOT c.value = ANY(${values}::text[])))
        ORDER BY rec.id`
    })

    return dieOnSqlErrors({ hits, queries, lockTask, taskProject, missingIds, userIds, insertTask, insertRecords, confirmedDocuments })
  })
}) {}
