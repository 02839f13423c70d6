import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { JobQueue } from "../../engine/JobQueue.ts"
import { defaultQueueName } from "./IngestOptions.ts"

export interface QueuedFile {
  readonly id: string
  readonly path: string
}

/** Who holds a claim: an index task at one attempt (a later attempt of the same task finds it stale). */
export interface Claimant {
  readonly taskId: string
  readonly attempt: number
}

/** The kind name of scan tasks, whose payload names the project (and queue) they fill. */
export const scanKind = "scan"

/** One queue: its name within a project (the reference's `queueName`, `extract:queue` by default). */
export interface QueueKey {
  readonly project: string
  readonly queueName: string
}

/**
 * The durable document queue (migration 0004): scans add paths, index tasks claim and remove them. A claim
 * holds while its task is RUNNING at the same attempt, so files of a stopped or crashed task are claimed again.
 */
export class DocumentQueue extends Effect.Service<DocumentQueue>()("quarry/DocumentQueue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue

    /**
     * Queues paths in one statement; answers how many it accepted (a path queued already counts, queueing is
     * idempotent). With `skipIndexed` (the `filter` option), paths the project's index already holds are left out.
     */
    const add = Effect.fn("DocumentQueue.add")(function* (key: QueueKey, paths: ReadonlyArray<string>, skipIndexed = false) {
      if (paths.length === 0) return 0
      const notIndexed = skipIndexed
        ? sql`WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.project = ${key.project} AND d.path = value)`
        : sql``
      const rows = yield* sql<{ accepted: number }>`WITH accepted AS (
          SELECT value AS path FROM jsonb_array_elements_text(${JSON.stringify(paths)}::jsonb) ${notIndexed}
        ), queued AS (
          INSERT INTO document_queue (project, queue_name, path) SELECT ${key.project}, ${key.queueName}, path FROM accepted
          ON CONFLICT (project, queue_name, path) DO NOTHING
        )
        SELECT count(*)::int AS accepted FROM accepted`
      return rows[0]?.accepted ?? 0
    })

    /** Takes up to `limit` of the oldest unclaimed (or stale) files of a project; rows another claim locks are skipped. */
    const claim = Effect.fn("DocumentQueue.claim")(function* (key: QueueKey, claimant: Claimant, limit: number) {
      return yield* sql<QueuedFile>`UPDATE document_queue SET claimed_by = ${claimant.taskId}, claim_attempt = ${claimant.attempt}
        WHERE id IN (
          SELECT q.id FROM document_queue q
          WHERE q.project = ${key.project} AND q.queue_name = ${key.queueName}
            AND (q.claimed_by IS NULL OR NOT ${jobs.runningAttempt(sql`q.claimed_by`, sql`q.claim_attempt`)})
          ORDER BY q.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id::text AS id, path`
    })

    /** Removes indexed files; called in the transaction that wrote their documents. */
    const remove = Effect.fn("DocumentQueue.remove")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return
      yield* sql`DELETE FROM document_queue WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`
    })

    const remaining = Effect.fn("DocumentQueue.remaining")(function* (key: QueueKey) {
      const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM document_queue
        WHERE project = ${key.project} AND queue_name = ${key.queueName}`
      return rows[0]?.count ?? 0
    })

    /** Whether a scan task filling the queue is queued or running: until none is, an empty queue may still fill. */
    const scanning = (key: QueueKey) => jobs.fillingQueue(scanKind, key, defaultQueueName)

    return { add, claim, remove, remaining, scanning }
  })
}) {}
