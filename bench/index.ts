/**
 * `npm run bench -- index`: a scan then an index task over BENCH_FILES (default 10 000) small mixed files
 * (test/fixtures/largeCorpus.ts: text, HTML, CSV, JSON, email, RTF, Word, PDF), on the embedded database and on
 * the PostgreSQL server, from the first submit to the index task DONE. The baseline, measured in the same run on
 * the same database, reads the same files and COPYs their raw bytes as text into a bare table over one connection,
 * reading ahead: what storing the files costs with no extraction, ids or text index. The PGlite socket server does
 * not speak COPY FROM STDIN, so on the embedded database the baseline INSERTs the same rows, 500 a statement.
 * The ratio is our files per second over the baseline's on the server (higher is better).
 * The embedded database is reached through ONE pooled connection: through databaseLayer's pool of ten, the PGlite
 * socket server interleaves other connections' statements into the index transactions and the task fails.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { Readable } from "node:stream"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schedule } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import { DatabaseInfo } from "../src/db/Database.ts"
import { Engine } from "../src/engine/Engine.ts"
import { IndexJob } from "../src/engine/kinds/IndexJob.ts"
import { ingestionKindsLayer } from "../src/engine/kinds/index.ts"
import { ScanJob } from "../src/engine/kinds/ScanJob.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { Extractor } from "../src/extract/Extractor.ts"
import { DocumentIndex } from "../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../src/search/postgres/PostgresDocumentIndex.ts"
import { generateLargeCorpus } from "../test/fixtures/largeCorpus.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { postgresAvailable } from "../test/helpers/databases.ts"
import { report } from "./report.ts"

const fileCount = Number(process.env.BENCH_FILES ?? 10_000)
/** Index workers, and baseline statements in flight at once. */
const parallelism = Math.max(2, os.availableParallelism())
/** Files read ahead of the COPY stream at once. */
const readAhead = 500

interface Figures {
  readonly seconds: number
  readonly documents: number
}

const taskState = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ state: string; result: unknown; error: string | null }>`SELECT state, result, error FROM tasks WHERE id = ${id}`
  ).pipe(Effect.map((rows) => rows[0]))

/** Seconds from queueing a scan of `dir` and an index task to the index task DONE. */
const oursRun = (dir: string, project: string) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const started = performance.now()
    yield* engine.submit(
      ScanJob,
      { directory: dir, project, options: { includeHiddenFiles: false, includeOSFiles: false, followSymlinks: false } },
      { userId: "bench" }
    )
    const task = yield* engine.submit(IndexJob, { project, parallelism, ocr: false, maxContentLength: -1 }, { userId: "bench" })
    const end = yield* taskState(task.id).pipe(
      Effect.filterOrFail((row) => row !== undefined && row.state !== "QUEUED" && row.state !== "RUNNING"),
      Effect.retry(Schedule.spaced("20 millis"))
    )
    const seconds = (performance.now() - started) / 1_000
    if (end?.state !== "DONE" || end.result !== fileCount) return yield* Effect.dieMessage(`index task ended ${JSON.stringify(end)}`)
    const documents = yield* Effect.flatMap(DocumentIndex, (index) => index.count(project))
    return { seconds, documents } satisfies Figures
  })

/** Rows of a file as the baseline stores them: its path and its raw bytes as latin1 text, NUL removed. */
const rawRow = async (file: string) => ({ path: file, content: (await fs.readFile(file)).toString("latin1").replace(/\0/g, "") })

/** A COPY text-format field: backslash, tab, newline and carriage return escaped. */
const copyField = (text: string) => text.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")

/** COPY rows (path, raw bytes as latin1 text) of every file, read `readAhead` files at a time. */
async function* copyRows(paths: ReadonlyArray<string>) {
  for (let start = 0; start < paths.length; start += readAhead) {
    const rows = await Promise.all(paths.slice(start, start + readAhead).map(rawRow))
    yield rows.map((row) => `${copyField(row.path)}\t${copyField(row.content)}\n`).join("")
  }
}

/** PGlite: the rows INSERTed `readAhead` a statement. */
const insertRows = (paths: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(
      Array.from({ length: Math.ceil(paths.length / readAhead) }, (_, i) => paths.slice(i * readAhead, (i + 1) * readAhead)),
      (batch) =>
        Effect.promise(() => Promise.all(batch.map(rawRow))).pipe(
          Effect.flatMap(
            (rows) =>
              sql`INSERT INTO bench_raw (path, content) SELECT path, content FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(path text, content text)`
          )
        ),
      { discard: true }
    )
  )

/** A server: the rows COPYed on a connection of its own. */
const copyRowsIn = (paths: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { config } = yield* PgClient.PgClient
    const client = new pg.Client(
      config.url !== undefined
        ? { connectionString: Redacted.value(config.url) }
        : { host: config.host, port: config.port, database: config.database, user: config.username }
    )
    yield* Effect.promise(async () => {
      await client.connect()
      try {
        await pipeline(Readable.from(copyRows(paths)), client.query(copyFrom("COPY bench_raw (path, content) FROM STDIN")))
      } finally {
        await client.end()
      }
    })
  })

/** Seconds to read every file and store its bytes as text in a bare table. */
const baselineRun = (paths: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE IF NOT EXISTS bench_raw (path text PRIMARY KEY, content text NOT NULL)`
    yield* sql`TRUNCATE bench_raw`
    const started = performance.now()
    yield* (yield* DatabaseInfo).kind === "pglite" ? insertRows(paths) : copyRowsIn(paths)
    const seconds = (performance.now() - started) / 1_000
    const copied = (yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM bench_raw`)[0]?.count
    if (copied !== paths.length) return yield* Effect.dieMessage(`the baseline copied ${copied} rows of ${paths.length}`)
    return { seconds, documents: paths.length } satisfies Figures
  })

const measure = (
  database: Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | DatabaseInfo>,
  dir: string,
  paths: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const engine = engineLayer({ parallelism })
    const kinds = ingestionKindsLayer.pipe(Layer.provide(Layer.mergeAll(engine, Extractor.Default)))
    const context = yield* Layer.build(Layer.mergeAll(engine, kinds))
    const ours = yield* oursRun(dir, "bench").pipe(Effect.provide(context))
    const baseline = yield* baselineRun(paths)
    return { ours, baseline }
  }).pipe(Effect.scoped, Effect.provide(PostgresDocumentIndex.pipe(Layer.provideMerge(database))))

export const run = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "quarry-bench-index-"))
  try {
    const paths = await generateLargeCorpus(dir, fileCount)
    const sizes = await Promise.all(paths.map((file) => fs.stat(file).then((stats) => stats.size)))
    const megabytes = sizes.reduce((a, b) => a + b, 0) / 1024 ** 2
    const rates = (figures: Figures) => ({
      docsPerSecond: Math.round(fileCount / figures.seconds),
      megabytesPerSecond: Math.round((megabytes / figures.seconds) * 100) / 100
    })
    const line = (label: string, result: { ours: Figures; baseline: Figures }) =>
      process.stdout.write(
        `${label}: ${rates(result.ours).docsPerSecond} files/s, ${rates(result.ours).megabytesPerSecond} MB/s (${result.ours.documents} documents in ${result.ours.seconds.toFixed(1)} s); ` +
          `baseline read+store ${rates(result.baseline).docsPerSecond} files/s, ${rates(result.baseline).megabytesPerSecond} MB/s\n`
      )
    process.stdout.write(`${fileCount} files, ${megabytes.toFixed(1)} MB, ${parallelism} workers\n`)
    const embedded = await Effect.runPromise(measure(testDatabase("pglite"), dir, paths))
    line("embedded", embedded)
    const server = postgresAvailable ? await Effect.runPromise(measure(testDatabase("postgres"), dir, paths)) : undefined
    if (server !== undefined) line("server  ", server)
    else process.stdout.write("server: skipped, PostgreSQL server not reachable\n")
    const ratio = (result: { ours: Figures; baseline: Figures }) =>
      Math.round((result.baseline.seconds / result.ours.seconds) * 1000) / 1000
    report("index", {
      files: fileCount,
      megabytes: Math.round(megabytes * 100) / 100,
      embeddedDocsPerSecond: rates(embedded.ours).docsPerSecond,
      embeddedMegabytesPerSecond: rates(embedded.ours).megabytesPerSecond,
      embeddedBaselineDocsPerSecond: rates(embedded.baseline).docsPerSecond,
      embeddedRatio: ratio(embedded),
      ...(server === undefined
        ? { serverSkipped: "PostgreSQL server not reachable" }
        : {
            docsPerSecond: rates(server.ours).docsPerSecond,
            megabytesPerSecond: rates(server.ours).megabytesPerSecond,
            baselineDocsPerSecond: rates(server.baseline).docsPerSecond,
            baselineMegabytesPerSecond: rates(server.baseline).megabytesPerSecond
          }),
      ratio: ratio(server ?? embedded)
    })
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}
