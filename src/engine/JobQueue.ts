import { SqlClient, type Statement } from "@effect/sql"
import { Duration, Effect, Option } from "effect"
import { dieOnSqlError } from "../db/SqlFailure.ts"
import { TaskId, type TaskRow, taskColumns, taskFromRow } from "../domain/task/Task.ts"
import { EngineConfig } from "./EngineConfig.ts"
import { notifyExpression, type TaskEventType, TaskEvents } from "./TaskEvents.ts"

export interface NewTask {
  readonly id: TaskId
  readonly name: string
  readonly kind: string
  readonly userId: string
  readonly payload: unknown
}

interface Changed {
  readonly id: string
  readonly kind: string
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/**
 * The task state machine, one SQL statement per transition, each announcing its change (see TaskEvents). Every
 * write by a running engine is guarded by `lease_owner`, so an engine that lost a task (stopped, reaped) cannot
 * overwrite what happened since. Services that need to know about tasks (the document queue, findNames) ask it
 * rather than reading the table themselves.
 */
export class JobQueue extends Effect.Service<JobQueue>()("quarry/JobQueue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* EngineConfig
    const events = yield* TaskEvents
    const worker = config.workerId
    const leaseMillis = Duration.toMillis(config.leaseDuration)
    const columns = sql.literal(taskColumns)
    const notify = (type: TaskEventType) => sql.literal(notifyExpression(type))
    const announce = (type: TaskEventType, rows: ReadonlyArray<Changed>) =>
      events.announce(rows.map((row) => ({ type, kind: row.kind, id: TaskId.make(row.id) })))
    const leaseEnd = sql`now() + ${leaseMillis}::bigint * interval '1 millisecond'`

    const enqueue = Effect.fn("JobQueue.enqueue")(function* (task: NewTask) {
      const rows = yield* sql<TaskRow>`WITH inserted AS (
          INSERT INTO tasks (id, name, kind, user_id, state, payload)
          VALUES (${task.id}, ${task.name}, ${task.kind}, ${task.userId}, 'QUEUED', ${json(task.payload)}::jsonb)
          RETURNING *)
        SELECT ${columns}, ${notify("queued")} FROM inserted`
      yield* announce("queued", rows)
      return taskFromRow(rows[0]!)
    })

    /** Takes up to `limit` of the oldest queued tasks of a kind; rows locked by another claim are skipped. */
    const claim = Effect.fn("JobQueue.claim")(function* (kind: string, limit: number) {
      const rows = yield* sql<TaskRow>`WITH claimed AS (
          UPDATE tasks SET state = 'RUNNING', attempts = attempts + 1, lease_owner = ${worker},
            lease_expires_at = ${leaseEnd}, started_at = COALESCE(started_at, now())
          WHERE id IN (
            SELECT id FROM tasks WHERE state = 'QUEUED' AND kind = ${kind}
            ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING *)
        SELECT ${columns}, ${notify("started")} FROM claimed`
      yield* announce("started", rows)
      return rows.map(taskFromRow)
    })

    /** Extends the lease of the given tasks; returns those this engine still holds. */
    const heartbeat = Effect.fn("JobQueue.heartbeat")(function* (ids: ReadonlyArray<TaskId>) {
      if (ids.length === 0) return new Set<TaskId>()
      const rows = yield* sql<{ id: string }>`UPDATE tasks SET lease_expires_at = ${leaseEnd}
        WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
          AND state = 'RUNNING' AND lease_owner = ${worker}
        RETURNING id`
      return new Set(rows.map((row) => TaskId.make(row.id)))
    })

    /** Writes the progress of several running tasks at once. */
    const progress = Effect.fn("JobQueue.progress")(function* (updates: ReadonlyArray<{ id: TaskId; progress: number }>) {
      if (updates.length === 0) return
      const rows = yield* sql<Changed>`WITH updated AS (
          UPDATE tasks SET progress = change.progress
          FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS change(id text, progress double precision)
          WHERE tasks.id = change.id AND tasks.state = 'RUNNING' AND tasks.lease_owner = ${worker}
          RETURNING tasks.id, tasks.kind)
        SELECT id, kind, ${notify("progress")} FROM updated`
      yield* announce("progress", rows)
    })

    const checkpoint = Effect.fn("JobQueue.checkpoint")(function* (id: TaskId, value: unknown) {
      const rows = yield* sql<{ id: string }>`UPDATE tasks SET checkpoint = ${json(value)}::jsonb
        WHERE id = ${id} AND state = 'RUNNING' AND lease_owner = ${worker}
        RETURNING id`
      return rows.length > 0
    })

    const complete = Effect.fn("JobQueue.complete")(function* (id: TaskId, result: unknown) {
      const rows = yield* sql<Changed>`WITH done AS (
          UPDATE tasks SET state = 'DONE', result = ${json(result)}::jsonb, progress = 1, finished_at = now(),
            lease_owner = NULL, lease_expires_at = NULL
          WHERE id = ${id} AND state = 'RUNNING' AND lease_owner = ${worker}
          RETURNING id, kind)
        SELECT id, kind, ${notify("finished")} FROM done`
      yield* announce("finished", rows)
      return rows.length > 0
    })

    const fail = Effect.fn("JobQueue.fail")(function* (id: TaskId, message: string) {
      const rows = yield* sql<Changed>`WITH failed AS (
          UPDATE tasks SET state = 'ERROR', error = ${message}, finished_at = now(),
            lease_owner = NULL, lease_expires_at = NULL
          WHERE id = ${id} AND state = 'RUNNING' AND lease_owner = ${worker}
          RETURNING id, kind)
        SELECT id, kind, ${notify("finished")} FROM failed`
      yield* announce("finished", rows)
      return rows.length > 0
    })

    /** Cancels the queued or running tasks matching `where`; the engine running them hears it and interrupts. */
    const cancelWhere = (where: Statement.Fragment) =>
      Effect.gen(function* () {
        const rows = yield* sql<TaskRow>`WITH cancelled AS (
            UPDATE tasks SET state = 'CANCELLED', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL
            WHERE ${where} AND state IN ('QUEUED', 'RUNNING')
            RETURNING *)
          SELECT ${columns}, ${notify("cancelled")} FROM cancelled`
        yield* announce("cancelled", rows)
        return rows.map(taskFromRow)
      })

    const cancel = Effect.fn("JobQueue.cancel")(function* (id: TaskId) {
      return (yield* cancelWhere(sql`id = ${id}`)).length > 0
    })

    const cancelAllOf = Effect.fn("JobQueue.cancelAllOf")(function* (userId: string) {
      return yield* cancelWhere(sql`user_id = ${userId}`)
    })

    /** Hands this engine's running tasks of a kind back to the queue (graceful shutdown). */
    const release = Effect.fn("JobQueue.release")(function* (kind: string) {
      const rows = yield* sql<Changed>`WITH released AS (
          UPDATE tasks SET state = 'QUEUED', lease_owner = NULL, lease_expires_at = NULL
          WHERE lease_owner = ${worker} AND kind = ${kind} AND state = 'RUNNING'
          RETURNING id, kind)
        SELECT id, kind, ${notify("queued")} FROM released`
      yield* announce("queued", rows)
      return rows.length
    })

    /**
     * Requeues running tasks whose lease expired (their engine died), or marks them ERROR once they have been
     * claimed `maxAttempts` times, so that a task that kills its process cannot loop forever.
     */
    const reap = Effect.fn("JobQueue.reap")(function* () {
      const rows = yield* sql<Changed & { state: string }>`WITH reaped AS (
          UPDATE tasks SET
            state = CASE WHEN attempts >= ${config.maxAttempts} THEN 'ERROR' ELSE 'QUEUED' END,
            error = CASE WHEN attempts >= ${config.maxAttempts} THEN 'lease expired ' || attempts || ' times' END,
            finished_at = CASE WHEN attempts >= ${config.maxAttempts} THEN now() END,
            lease_owner = NULL, lease_expires_at = NULL
          WHERE state = 'RUNNING' AND lease_expires_at < now()
          RETURNING id, kind, state)
        SELECT id, kind, state,
          CASE WHEN state = 'QUEUED' THEN ${notify("queued")} ELSE ${notify("finished")} END
        FROM reaped`
      yield* announce(
        "queued",
        rows.filter((row) => row.state === "QUEUED")
      )
      yield* announce(
        "finished",
        rows.filter((row) => row.state !== "QUEUED")
      )
      return rows.length
    })

    /**
     * A condition for a statement on another table: true while task `taskId` runs at attempt `attempt` (expressions of
     * that statement), so that what an earlier run of the task left is told from what the running one holds.
     */
    const runningAttempt = (taskId: Statement.Fragment, attempt: Statement.Fragment) =>
      sql`EXISTS (SELECT 1 FROM tasks t WHERE t.id = ${taskId} AND t.state = 'RUNNING' AND t.attempts = ${attempt})`

    /**
     * Whether a task of `kind` filling one queue of a project (payload `project` and `queueName`, `defaultQueueName`
     * when it names none) is queued or running.
     */
    const fillingQueue = Effect.fn("JobQueue.fillingQueue")(function* (
      kind: string,
      queue: { readonly project: string; readonly queueName: string },
      defaultQueueName: string
    ) {
      const rows = yield* sql<{ active: boolean }>`SELECT EXISTS (
          SELECT 1 FROM tasks WHERE kind = ${kind} AND state IN ('QUEUED', 'RUNNING') AND payload->>'project' = ${queue.project}
            AND COALESCE(payload->>'queueName', ${defaultQueueName}) = ${queue.queueName}
        ) AS active`
      return rows[0]?.active === true
    })

    /** Whether a task of one of `kinds` runs for the project its payload names. */
    const runningFor = Effect.fn("JobQueue.runningFor")(function* (kinds: ReadonlyArray<string>, project: string) {
      const rows = yield* sql<{ active: boolean }>`SELECT EXISTS (
          SELECT 1 FROM tasks WHERE kind IN ${sql.in(kinds)} AND state = 'RUNNING' AND payload->>'project' = ${project}
        ) AS active`
      return rows[0]?.active === true
    })

    // The task API's views and removals (src/domain/task/Tasks.ts): no caller recovers from a failed read.
    const find = Effect.fn("JobQueue.find")(function* (id: TaskId) {
      const rows = yield* sql<TaskRow>`SELECT ${columns} FROM tasks WHERE id = ${id}`
      return Option.map(Option.fromNullable(rows[0]), taskFromRow)
    }, dieOnSqlError)

    const listOwnedBy = Effect.fn("JobQueue.listOwnedBy")(function* (userId: string) {
      const rows = yield* sql<TaskRow>`SELECT ${columns} FROM tasks WHERE user_id = ${userId} ORDER BY created_at, id`
      return rows.map(taskFromRow)
    }, dieOnSqlError)

    const deleteFinishedOf = Effect.fn("JobQueue.deleteFinishedOf")(function* (userId: string) {
      const rows = yield* sql<TaskRow>`DELETE FROM tasks
        WHERE user_id = ${userId} AND state IN ('DONE', 'ERROR', 'CANCELLED')
        RETURNING ${columns}`
      return rows.map(taskFromRow)
    }, dieOnSqlError)

    /** Removes the task if it has finished; none when it is unknown or still queued or running. */
    const deleteIfFinished = Effect.fn("JobQueue.deleteIfFinished")(function* (id: TaskId) {
      const rows = yield* sql<TaskRow>`DELETE FROM tasks
        WHERE id = ${id} AND state IN ('DONE', 'ERROR', 'CANCELLED')
        RETURNING ${columns}`
      return Option.map(Option.fromNullable(rows[0]), taskFromRow)
    }, dieOnSqlError)

    /** Whether the task was stopped (rather than handed back at shutdown, or finished). */
    const isCancelled = Effect.fn("JobQueue.isCancelled")(function* (id: string) {
      const rows = yield* sql<{ cancelled: boolean }>`SELECT state = 'CANCELLED' AS cancelled FROM tasks WHERE id = ${id}`
      return rows[0]?.cancelled === true
    })

    return {
      enqueue,
      claim,
      heartbeat,
      progress,
      checkpoint,
      complete,
      fail,
      cancel,
      cancelAllOf,
      release,
      reap,
      runningAttempt,
      fillingQueue,
      runningFor,
      find,
      listOwnedBy,
      deleteFinishedOf,
      deleteIfFinished,
      isCancelled
    }
  })
}) {}
