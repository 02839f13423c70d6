import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface QueuedFile {
  readonly id: string
  readonly path: string
}

/** Who holds a claim: an index task at one attempt (a later attempt of the same task finds it stale). */
export interface Claimant {
  readonly taskId: string
  readonly attempt: number
}

/** The kind name of scan tasks, whose payload names the project they fill. */
export const scanKind = "scan"

/**
 * The durable document queue (migration 0004): scans add paths, index tasks claim and remove them. A claim
 * holds while its task is RUNNING at the same attempt, so files of a stopped or crashed task are claimed again.
 */
export class DocumentQueue extends Effect.Service<DocumentQueue>()("quarry/DocumentQueue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Queues paths in one statement; answers how many were not queued already. */
    const add = Effect.fn("DocumentQueue.add")(function* (project: string, paths: ReadonlyArray<string>) {
      if (paths.length === 0) return 0
      const rows = yield* sql<{ id: string }>`INSERT INTO document_queue (project, path)
        SELECT ${project}, value FROM jsonb_array_elements_text(${JSON.stringify(paths)}::jsonb)
        ON CONFLICT (project, path) DO NOTHING
        RETURNING id`
      return rows.length
    })

    /** Takes up to `limit` of the oldest unclaimed (or stale) files of a project; rows another claim locks are skipped. */
    const claim = Effect.fn("DocumentQueue.claim")(function* (project: string, claimant: Claimant, limit: number) {
      return yield* sql<QueuedFile>`UPDATE document_queue SET claimed_by = ${claimant.taskId}, claim_attempt = ${claimant.attempt}
        WHERE id IN (
          SELECT q.id FROM document_queue q
          WHERE q.project = ${project} AND (q.claimed_by IS NULL OR NOT EXISTS (
            SELECT 1 FROM tasks t WHERE t.id = q.claimed_by AND t.state = 'RUNNING' AND t.attempts = q.claim_attempt))
          ORDER BY q.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id::text AS id, path`
    })

    /** Removes indexed files; called in the transaction that wrote their documents. */
    const remove = Effect.fn("DocumentQueue.remove")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return
      yield* sql`DELETE FROM document_queue WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`
    })

    const remaining = Effect.fn("DocumentQueue.remaining")(function* (project: string) {
      const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM document_queue WHERE project = ${project}`
      return rows[0]?.count ?? 0
    })

    /** Whether a scan task for the project is queued or running: until none is, an empty queue may still fill. */
    const scanning = Effect.fn("DocumentQueue.scanning")(function* (project: string) {
      const rows = yield* sql<{ active: boolean }>`SELECT EXISTS (
          SELECT 1 FROM tasks WHERE kind = ${scanKind} AND state IN ('QUEUED', 'RUNNING') AND payload->>'project' = ${project}
        ) AS active`
      return rows[0]?.active === true
    })

    return { add, claim, remove, remaining, scanning }
  })
}) {}
