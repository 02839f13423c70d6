/**
 * `npm run bench -- batch`: a batch search of BENCH_BATCH_QUERIES (default 10 000) queries over the generated search
 * corpus (BENCH_SEARCH_DOCUMENTS, default 100 000 documents, see _searchCorpus.ts), on the PostgreSQL server and on
 * the embedded database (BENCH_BATCH_QUERIES_EMBEDDED, default 2 000), from the task's submission to its end: queries
 * per second. The baseline, measured in the same run on the same database, replays in a loop the very SQL
 * statements the search engine issues for each query (recorded once beforehand): what the searches cost the
 * database alone. The ratio is our queries per second over the baseline's on the server (higher is better).
 * Queries are pairs of rare words joined by AND, like names in a list: most match a handful of documents.
 */
import { SqlClient, Statement } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { searchBody } from "../src/domain/batch-search/BatchQuery.ts"
import { BatchSearchRepo } from "../src/domain/batch-search/BatchSearchRepo.ts"
import { Engine } from "../src/engine/Engine.ts"
import { BatchSearchJob, BatchSearchJobLive } from "../src/engine/kinds/BatchSearchJob.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { PostgresSearchBackend } from "../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../src/search/SearchBackend.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { type DatabaseKind, postgresAvailable } from "../test/helpers/databases.ts"
import { corpusProject, generateSearchCorpus } from "./_searchCorpus.ts"
import { report } from "./report.ts"

const options = { phraseMatches: false, fuzziness: 0, fileTypes: [], paths: [], tags: [] }

/** `count` distinct queries `termA AND termB` over the rare half of the vocabulary. */
const queriesOf = (count: number) =>
  Array.from({ length: count }, (_, i) => `term${1000 + (i % 1000)} AND term${1000 + ((i * 7 + Math.floor(i / 1000)) % 1000)}`)

interface Figures {
  readonly queriesPerSecond: number
  readonly results: number
}

/** Seconds from submitting the batch search to its task DONE. */
const oursRun = (queries: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const repo = yield* BatchSearchRepo
    const engine = yield* Engine
    const sql = yield* SqlClient.SqlClient
    const uuid = "00000000-0000-4000-8000-0000000000be"
    yield* repo.insert(uuid, { name: "bench", description: "", userId: "bench", published: false, projects: [corpusProject], queries, ...options })
    const started = performance.now()
    yield* engine.submit(BatchSearchJob, { uuid }, { userId: "bench", id: uuid })
    const end = yield* sql<{ state: string; results: number }>`SELECT b.state, b.batch_results AS results FROM batch_searches b WHERE b.uuid = ${uuid}`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.filterOrFail((row) => row !== undefined && (row.state === "SUCCESS" || row.state === "FAILURE")),
      Effect.retry(Schedule.spaced("50 millis"))
    )
    const seconds = (performance.now() - started) / 1_000
    if (end?.state !== "SUCCESS") return yield* Effect.dieMessage(`the batch search ended ${JSON.stringify(end)}`)
    return { queriesPerSecond: Math.round(queries.length / seconds), results: end.results } satisfies Figures
  })

/** The SQL statements (text and parameters) the engine issues for one query's search. */
const recordStatements = (query: string) =>
  Effect.gen(function* () {
    const backend = yield* SearchBackend
    const statements: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const body = searchBody(query, options, 0, 1_000)
    const response = yield* backend.handle({ method: "POST", path: `${corpusProject}/_search`, query: new URLSearchParams(), body }).pipe(
      Statement.withTransformer((statement) => Effect.sync(() => (statements.push(statement.compile()), statement)))
    )
    if (response.status !== 200) return yield* Effect.dieMessage(`bench search failed: ${JSON.stringify(response.body)}`)
    return statements
  })

/** The recorded statements replayed one query after another, as the batch search runs its queries. */
const baselineRun = (queries: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const recorded = yield* Effect.forEach(queries, recordStatements)
    const started = performance.now()
    for (const statements of recorded) {
      for (const [text, parameters] of statements) yield* sql.unsafe(text, parameters)
    }
    return { queriesPerSecond: Math.round(queries.length / ((performance.now() - started) / 1_000)), results: 0 } satisfies Figures
  })

const measure = (kind: DatabaseKind, count: number) =>
  Effect.gen(function* () {
    yield* generateSearchCorpus
    const queries = queriesOf(count)
    const engine = engineLayer({})
    const context = yield* Layer.build(Layer.mergeAll(engine, BatchSearchJobLive.pipe(Layer.provide(engine))))
    const ours = yield* Effect.provide(oursRun(queries), context)
    const baseline = yield* baselineRun(queries)
    process.stdout.write(`${kind}: ${count} queries, ${ours.results} results: ${ours.queriesPerSecond} queries/s; baseline SQL ${baseline.queriesPerSecond} queries/s\n`)
    return { ours, baseline }
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(BatchSearchRepo.Default, PostgresSearchBackend).pipe(Layer.provideMerge(testDatabase(kind))))
  )

const ratio = (run: { ours: Figures; baseline: Figures }) => Math.round((run.ours.queriesPerSecond / run.baseline.queriesPerSecond) * 100) / 100

export const run = async () => {
  const embedded = await Effect.runPromise(measure("pglite", Number(process.env.BENCH_BATCH_QUERIES_EMBEDDED ?? 2_000)))
  const server = postgresAvailable ? await Effect.runPromise(measure("postgres", Number(process.env.BENCH_BATCH_QUERIES ?? 10_000))) : undefined
  report("batch", {
    embeddedQueriesPerSecond: embedded.ours.queriesPerSecond,
    embeddedBaselineQueriesPerSecond: embedded.baseline.queriesPerSecond,
    embeddedRatio: ratio(embedded),
    ...(server === undefined
      ? { serverSkipped: "PostgreSQL server not reachable" }
      : { queriesPerSecond: server.ours.queriesPerSecond, baselineQueriesPerSecond: server.baseline.queriesPerSecond, results: server.ours.results }),
    ratio: ratio(server ?? embedded)
  })
}
