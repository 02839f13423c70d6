/**
 * `npm run bench -- search-scale`: search speed at scale. Corpora: generated ones of BENCH_SCALE_SIZES documents
 * (default 10 000, 100 000 and 1 000 000; PGlite only up to BENCH_SCALE_EMBEDDED_MAX, default 100 000) and
 * BENCH_SCALE_REAL_FILES (default 10 000, 0 skips it) HTML manuals of Debian packages indexed through Quarry's own
 * scan and index tasks. Each corpus is in a throwaway database of its own. Queries are drawn from the corpus's
 * own word frequencies, BENCH_SCALE_QUERIES (default 8) per class (common, medium and rare words, two words,
 * phrases, and facet requests), no request body twice in a run, each with the body the Datashare 11.5 client
 * sends; they go through the engine's SearchBackend without its answer cache (the headline) and with a fresh one,
 * at concurrency 1 and 8. The baseline, same run and database, is the minimal indexed SQL for the same words:
 * a count and the 25 best ids by ts_rank. Ratios are our requests per second over the baseline's (higher is
 * better); the top-level `ratio` is the server's, 100 000 documents, concurrency 8, without the cache.
 * On the server's 100 000-document corpus (or the largest generated one below it), a real Quarry HTTP server runs
 * expensive searches (fuzzy, many `~2` terms, a leading wildcard, a prefix, a regexp) and then 200 distinct
 * searches at once, while `/api/status` is sampled every 20 ms.
 * BENCH_SCALE_DATABASES (default `postgres,pglite`) picks the databases.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { DatabaseInfo } from "../src/db/Database.ts"
import { Engine } from "../src/engine/Engine.ts"
import { IndexJob } from "../src/engine/kinds/IndexJob.ts"
import { ingestionKindsLayer } from "../src/engine/kinds/index.ts"
import { ScanJob } from "../src/engine/kinds/ScanJob.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { Extractor } from "../src/extract/Extractor.ts"
import { PostgresDocumentIndex } from "../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend, PostgresSearchBackend } from "../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend, type SearchBackendShape } from "../src/search/SearchBackend.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { type DatabaseKind, postgresAvailable } from "../test/helpers/databases.ts"
import { percentile, round, searchBody } from "./_clientSearch.ts"
import { realDocuments, unpackedDir } from "./_realDocs.ts"
import { bounded } from "./_scaleBounded.ts"
import { generateScaleCorpus, generatedRoot } from "./_scaleCorpus.ts"
import { classes, pickQueries, type Query, type QueryClass, type QuerySet } from "./_scaleQueries.ts"
import { report } from "./report.ts"

const sizes = (process.env.BENCH_SCALE_SIZES ?? "10000,100000,1000000").split(",").map(Number)
const embeddedMax = Number(process.env.BENCH_SCALE_EMBEDDED_MAX ?? 100_000)
const realFiles = Number(process.env.BENCH_SCALE_REAL_FILES ?? 10_000)
const perClass = Number(process.env.BENCH_SCALE_QUERIES ?? 8)
const databases = (process.env.BENCH_SCALE_DATABASES ?? "postgres,pglite").split(",") as ReadonlyArray<DatabaseKind>
const concurrencies = [1, 8] as const

// ---- Timing ----

interface Timing {
  readonly queryClass: QueryClass
  readonly ms: number
  readonly ok: boolean
}

interface Summary {
  readonly p50Ms: number
  readonly p90Ms: number
  readonly p99Ms: number
  readonly requestsPerSecond: number
  readonly errors: number
  readonly classP50Ms: Readonly<Record<string, number>>
}

/** Every query once, `parallel` at a time, each timed. */
const timed = <E, R>(queries: ReadonlyArray<Query>, parallel: number, send: (query: Query) => Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    const timings: Array<Timing> = []
    const started = performance.now()
    yield* Effect.forEach(
      queries,
      (query) => {
        const begin = performance.now()
        return Effect.map(send(query), (ok) => void timings.push({ queryClass: query.queryClass, ms: performance.now() - begin, ok }))
      },
      { concurrency: parallel, discard: true }
    )
    const seconds = (performance.now() - started) / 1_000
    const sorted = (of: ReadonlyArray<Timing>) => of.map((timing) => timing.ms).sort((a, b) => a - b)
    const all = sorted(timings)
    return {
      p50Ms: round(percentile(all, 50)),
      p90Ms: round(percentile(all, 90)),
      p99Ms: round(percentile(all, 99)),
      requestsPerSecond: round(queries.length / seconds, 2),
      errors: timings.filter((timing) => !timing.ok).length,
      classP50Ms: Object.fromEntries(
        classes.map((queryClass) => [queryClass, round(percentile(sorted(timings.filter((t) => t.queryClass === queryClass)), 50))])
      )
    } satisfies Summary
  })

const searchThrough = (backend: SearchBackendShape, project: string) => (query: Query) =>
  Effect.map(
    backend.handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body: query.body }),
    (answer) => answer.status === 200
  )

const baselineSql = (project: string) => (query: Query) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe("SELECT count(*) FROM documents WHERE project = $1 AND content_tsv @@ $2::tsquery", [project, query.tsquery])
    yield* sql.unsafe(
      "SELECT id FROM documents WHERE project = $1 AND content_tsv @@ $2::tsquery ORDER BY ts_rank(content_tsv, $2::tsquery) DESC LIMIT 25",
      [project, query.tsquery]
    )
    return true
  }).pipe(Effect.orDie)

/** Runs `use` with a backend of its own: a fresh answer cache (or none) for each run. */
const withBackend = <A, E, R>(
  layer: Layer.Layer<SearchBackend, never, SqlClient.SqlClient | DatabaseInfo>,
  use: (backend: SearchBackendShape) => Effect.Effect<A, E, R>
) => Effect.flatMap(SearchBackend, use).pipe(Effect.provide(layer))

const ratio = (ours: Summary, baseline: Summary) => round(ours.requestsPerSecond / baseline.requestsPerSecond, 3)

/**
 * Searches of words no measured request uses, before the measurements, as many as a run measures and as many at once:
 * with eight at concurrency 2, the first measured run still compiled its code (the same 48 searches at concurrency 8,
 * run ten times over, went from 83 to 120–133 a second in one process), so the figures were a new process's.
 */
const warmUpSearches = 48

/** The three measurements at each concurrency, after a warm-up of words no measured request uses. */
const measureQueries = (label: string, project: string, set: QuerySet) =>
  Effect.gen(function* () {
    const uncached = makePostgresSearchBackend(0)
    const warmUp = set.spareWords
      .slice(0, warmUpSearches)
      .map((word): Query => ({ queryClass: "medium", body: searchBody(word), tsquery: word }))
    const parallel = Math.max(...concurrencies)
    yield* withBackend(uncached, (backend) => timed(warmUp, parallel, searchThrough(backend, project)))
    yield* timed(warmUp, parallel, baselineSql(project))
    const figures: Record<string, unknown> = {}
    for (const concurrency of concurrencies) {
      const baseline = yield* timed(set.queries, concurrency, baselineSql(project))
      const oursUncached = yield* withBackend(uncached, (backend) => timed(set.queries, concurrency, searchThrough(backend, project)))
      const oursCached = yield* withBackend(PostgresSearchBackend, (backend) =>
        timed(set.queries, concurrency, searchThrough(backend, project))
      )
      process.stdout.write(
        `${label} c${concurrency}: uncached p50 ${oursUncached.p50Ms} ms p99 ${oursUncached.p99Ms} ms ${oursUncached.requestsPerSecond} req/s; ` +
          `cached ${oursCached.requestsPerSecond} req/s; baseline p50 ${baseline.p50Ms} ms ${baseline.requestsPerSecond} req/s; ` +
          `class p50 ${JSON.stringify(oursUncached.classP50Ms)} (baseline ${JSON.stringify(baseline.classP50Ms)})\n`
      )
      figures[`concurrency${concurrency}`] = {
        uncached: oursUncached,
        cached: oursCached,
        baseline,
        uncachedRatio: ratio(oursUncached, baseline),
        cachedRatio: ratio(oursCached, baseline)
      }
    }
    return figures
  })

// ---- Corpora ----

const corpusFacts = (project: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ documents: number; megabytes: number }>`
      SELECT count(*)::int AS documents, round(sum(octet_length(content)) / 1e6, 1)::float8 AS megabytes FROM documents WHERE project = ${project}`
  ).pipe(Effect.map((rows) => rows[0]!))

const generatedCorpus = (kind: DatabaseKind, documents: number, boundedHere: boolean) =>
  Effect.gen(function* () {
    const project = `scale${documents}`
    const label = `${kind} ${documents}`
    const started = performance.now()
    yield* generateScaleCorpus(project, documents)
    const loadSeconds = round((performance.now() - started) / 1_000)
    const facts = yield* corpusFacts(project)
    process.stdout.write(`${label}: generated ${facts.documents} documents, ${facts.megabytes} MB in ${loadSeconds} s\n`)
    const set = yield* pickQueries(project, documents, generatedRoot, perClass)
    const figures = { ...facts, loadSeconds, queries: set.queries.length, ...(yield* measureQueries(label, project, set)) }
    return boundedHere ? { ...figures, bounded: yield* bounded(project, set) } : figures
  }).pipe(Effect.provide(testDatabase(kind)), Effect.scoped)

const taskState = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ state: string; result: unknown }>`SELECT state, result FROM tasks WHERE id = ${id}`
  ).pipe(Effect.map((rows) => rows[0]))

/** Scan then index `dir` into `project` through the engine's tasks, as `POST /api/task/batchUpdate/index` does. */
const indexFolder = (dir: string, project: string) =>
  Effect.gen(function* () {
    const parallelism = Math.max(2, os.availableParallelism())
    const engine = engineLayer({ parallelism })
    const kinds = ingestionKindsLayer.pipe(Layer.provide(Layer.mergeAll(engine, Extractor.Default)))
    const context = yield* Layer.build(Layer.mergeAll(engine, kinds))
    const submit = Effect.gen(function* () {
      const tasks = yield* Engine
      yield* tasks.submit(
        ScanJob,
        { directory: dir, project, options: { includeHiddenFiles: false, includeOSFiles: false, followSymlinks: false } },
        { userId: "bench" }
      )
      return yield* tasks.submit(IndexJob, { project, parallelism, ocr: false, maxContentLength: -1 }, { userId: "bench" })
    })
    const task = yield* Effect.provide(submit, context)
    const end = yield* taskState(task.id).pipe(
      Effect.filterOrFail((row) => row !== undefined && row.state !== "QUEUED" && row.state !== "RUNNING"),
      Effect.retry(Schedule.spaced("200 millis"))
    )
    if (end?.state !== "DONE") return yield* Effect.dieMessage(`index task ended ${JSON.stringify(end)}`)
  }).pipe(Effect.provide(PostgresDocumentIndex), Effect.scoped)

/** The manuals copied into a temporary folder (their packages' layout kept), indexed, analysed, measured. */
const realCorpus = (kind: DatabaseKind, files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const project = "realdocs"
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-real-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    for (const file of files) {
      const target = path.join(dir, path.relative(unpackedDir, file))
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.copyFileSync(file, target)
    }
    const started = performance.now()
    yield* indexFolder(dir, project)
    yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ANALYZE`)
    const indexSeconds = round((performance.now() - started) / 1_000)
    const facts = yield* corpusFacts(project)
    process.stdout.write(
      `${kind} real: indexed ${files.length} files into ${facts.documents} documents, ${facts.megabytes} MB of text in ${indexSeconds} s\n`
    )
    const set = yield* pickQueries(project, facts.documents, dir, perClass)
    return {
      files: files.length,
      ...facts,
      indexSeconds,
      queries: set.queries.length,
      ...(yield* measureQueries(`${kind} real`, project, set))
    }
  }).pipe(Effect.provide(testDatabase(kind)), Effect.scoped)

export const run = async () => {
  const kinds = databases.filter((kind) => kind !== "postgres" || postgresAvailable)
  if (kinds.length < databases.length) process.stdout.write("server: skipped, PostgreSQL server not reachable\n")
  const files = realFiles > 0 ? realDocuments(realFiles) : []
  const serverSizes = sizes.filter((size) => size <= 100_000)
  const boundedSize = serverSizes.includes(100_000) ? 100_000 : Math.max(...serverSizes, sizes[0]!)
  const results: Record<string, Record<string, unknown>> = {}
  for (const kind of kinds) {
    const corpora: Record<string, unknown> = {}
    for (const size of sizes.filter((size) => kind === "postgres" || size <= embeddedMax)) {
      corpora[`generated${size}`] = await Effect.runPromise(generatedCorpus(kind, size, kind === "postgres" && size === boundedSize))
    }
    if (files.length > 0) corpora.real = await Effect.runPromise(realCorpus(kind, files))
    results[kind] = corpora
  }
  type Measured = { concurrency1: { uncached: Summary }; concurrency8: { uncachedRatio: number } }
  const server = results.postgres as Record<string, Measured | undefined> | undefined
  const headline = server?.generated100000 ?? server?.[`generated${boundedSize}`]
  const smallest = Math.min(...sizes)
  const largest = Math.max(...sizes)
  report("search-scale", {
    sizes,
    queriesPerClass: perClass,
    ...(server === undefined
      ? { serverSkipped: "PostgreSQL server not reachable or not asked for" }
      : {
          rareWordP50Ms: {
            [`documents${smallest}`]: server[`generated${smallest}`]?.concurrency1.uncached.classP50Ms.rare,
            [`documents${largest}`]: server[`generated${largest}`]?.concurrency1.uncached.classP50Ms.rare
          }
        }),
    ...results,
    ratio: headline?.concurrency8.uncachedRatio ?? null
  })
}
