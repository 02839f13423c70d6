/**
 * `npm run bench -- review`: requests per second and p99 of a page of task records with includes,
 * `GET /api/v1/task-records/?include=task,medias&filter[task]=…&page[number]=…`, at 16 connections over a task of
 * BENCH_RECORDS (default 100 000) records, on the PostgreSQL server when it answers (else the embedded database).
 * The baseline runs the same SQL statements the endpoint issues (count, page, media pairs, the included task,
 * its progress counts and checkers) directly through the same client, 16 at a time, for as long: what the
 * JSON:API layer and HTTP cost on top of the database. The ratio is our requests per second over the baseline's.
 */
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { resolveSettings } from "../src/config/Settings.ts"
import { HttpServerInfo } from "../src/http/Server.ts"
import { quarryLayer } from "../src/Quarry.ts"
import { dataSourceUrlFor, postgresAvailable } from "../test/helpers/databases.ts"
import { measureLoad } from "./_load-runner.ts"
import { report } from "./report.ts"

const recordCount = Number(process.env.BENCH_RECORDS ?? 100_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = 16
const pageNumber = 50
const cookie = `_ds_session_id={"login":"local","roles":["local"],"sessionId":"0123456789abcdef","redirectAfterLogin":"/"}`

/** A project, a task checked by the local user, and the records, written directly. */
const seed = (sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    const [user] = yield* sql<{ id: number }>`INSERT INTO users (login, roles) VALUES ('local', '{admin}') RETURNING id`
    yield* sql`INSERT INTO review_projects (name, creator_id) VALUES ('Bench', ${user!.id})`
    yield* sql`INSERT INTO review_template_settings (kind) VALUES ('TEXT')`
    const [task] = yield* sql<{ id: number }>`
      INSERT INTO review_tasks (name, project_id, template_setting_id, record_link_template)
      VALUES ('Bench task', (SELECT max(id) FROM review_projects), (SELECT max(id) FROM review_template_settings), 'https://example.org/{uid}')
      RETURNING id`
    yield* sql`INSERT INTO review_task_checkers (task_id, checker_id) VALUES (${task!.id}, ${user!.id})`
    yield* sql`
      INSERT INTO review_task_records (task_id, uid, original_value, predicted_value, metadata)
      SELECT ${task!.id}, 'r' || n, 'original value ' || n, 'predicted ' || n, jsonb_build_object('n', n)
      FROM generate_series(1, ${recordCount}) AS n`
    yield* sql`ANALYZE`
    return { taskId: task!.id, userId: user!.id }
  })

/** The statements the endpoint runs for one page, in order. */
const pageStatements = (sql: SqlClient.SqlClient, taskId: number, userId: number, offset: number) =>
  Effect.gen(function* () {
    yield* sql`SELECT 1 FROM review_tasks WHERE id = ${taskId}`
    yield* sql`SELECT count(*)::int AS count FROM review_task_records r JOIN review_tasks t ON t.id = r.task_id WHERE r.task_id = ${taskId}`
    const rows = yield* sql<{ id: number }>`
      SELECT r.id, r.task_id, r.uid, r.original_value, r.predicted_value, r.metadata, r.status, r.rounds, r.priority, r.link, r.embeddable_link,
        r.locked, r.locked_by_id, t.record_link_template, t.embeddable_record_link_template,
        EXISTS (SELECT 1 FROM review_task_record_bookmarks b WHERE b.task_record_id = r.id AND b.user_id = ${userId}) AS bookmarked
      FROM review_task_records r JOIN review_tasks t ON t.id = r.task_id WHERE r.task_id = ${taskId}
      ORDER BY r.id DESC LIMIT 10 OFFSET ${offset}`
    yield* sql`SELECT task_record_id AS owner, id FROM review_task_record_media WHERE task_record_id = ANY(${rows.map((row) => row.id)}::int[]) ORDER BY id`
    yield* sql`SELECT r.* FROM review_tasks r WHERE r.id = ANY(${[taskId]}::int[])`
    yield* sql`SELECT task_id, count(*)::int, count(*) FILTER (WHERE status = 'DONE')::int FROM review_task_records WHERE task_id = ANY(${[taskId]}::int[]) GROUP BY task_id`
    yield* sql`
      SELECT rec.task_id, rv.round, count(*)::int FROM review_task_record_reviews rv JOIN review_task_records rec ON rec.id = rv.task_record_id
      WHERE rec.task_id = ANY(${[taskId]}::int[]) GROUP BY rec.task_id, rv.round`
    yield* sql`SELECT task_id AS owner, checker_id AS id FROM review_task_checkers WHERE task_id = ANY(${[taskId]}::int[])`
  })

/** 16 workers running the page statements back to back for `seconds`; requests per second and p99. */
const baseline = (sql: SqlClient.SqlClient, taskId: number, userId: number) =>
  Effect.gen(function* () {
    const latencies: Array<number> = []
    const deadline = performance.now() + seconds * 1_000
    const worker = Effect.gen(function* () {
      while (performance.now() < deadline) {
        const started = performance.now()
        yield* pageStatements(sql, taskId, userId, (pageNumber - 1) * 10)
        latencies.push(performance.now() - started)
      }
    })
    yield* Effect.all(
      Array.from({ length: connections }, () => worker),
      { concurrency: "unbounded" }
    )
    latencies.sort((a, b) => a - b)
    return {
      requestsPerSecond: Math.round(latencies.length / seconds),
      p99Ms: Number(latencies[Math.floor(latencies.length * 0.99)]!.toFixed(2))
    }
  })

export const run = async () => {
  const database = postgresAvailable ? "postgres" : "pglite"
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const dataSourceUrl = yield* dataSourceUrlFor(database)
        const settings = yield* resolveSettings({
          env: {},
          cli: { tcpListenPort: "0", dataSourceUrl, dataDir: os.tmpdir() },
          defaultSettingsFile: path.join(os.tmpdir(), "quarry-bench-no-settings.properties")
        })
        const context = yield* Layer.build(quarryLayer(settings))
        const sql = Context.get(context, SqlClient.SqlClient)
        const { taskId, userId } = yield* seed(sql)
        const url = `${Context.get(context, HttpServerInfo).url}/api/v1/task-records/?include=task,medias&filter[task]=${taskId}&page[number]=${pageNumber}`
        const check = yield* Effect.promise(() => fetch(url, { headers: { cookie } }))
        if (check.status !== 200)
          return yield* Effect.dieMessage(`the endpoint answered ${check.status}: ${yield* Effect.promise(() => check.text())}`)
        yield* Effect.promise(() => measureLoad(url, 1, connections, cookie))
        const ours = yield* Effect.promise(() => measureLoad(url, seconds, connections, cookie))
        const direct = yield* baseline(sql, taskId, userId)
        if (ours.non2xx + ours.errors > 0) yield* Effect.logWarning(`quarry answered ${ours.non2xx} non-2xx and ${ours.errors} errors`)
        report("review", {
          endpoint: "GET /api/v1/task-records/?include=task,medias&filter[task]=…&page[number]=50",
          database,
          records: recordCount,
          connections,
          seconds,
          requestsPerSecond: ours.requestsPerSecond,
          p50Ms: ours.p50Ms,
          p99Ms: ours.p99Ms,
          baselineRequestsPerSecond: direct.requestsPerSecond,
          baselineP99Ms: direct.p99Ms,
          ratio: Number((ours.requestsPerSecond / direct.requestsPerSecond).toFixed(3))
        })
      })
    ).pipe(Effect.orDie)
  )
}
