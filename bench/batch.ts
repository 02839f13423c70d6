/**
 * `npm run bench -- batch`: a batch search of BENCH_BATCH_QUERIES (default 10 000) queries over the generated search
 * corpus (BENCH_SEARCH_DOCUMENTS, default 100 000 documents, see _searchCorpus.ts), on the PostgreSQL server and on
 * the embedded database (BENCH_BATCH_QUERIES_EMBEDDED, default 2 000), from the task's submission to its end: queries
 * per second. The baseline, measured in the same run on the same database, is the least SQL that answers the same
 * queries: for each query, one after the other, the count of documents whose content matches its words, and its
 * best hits by ts_rank inserted into a table shaped like batch_search_results (INSERT … SELECT), with the tsquery
 * built from the query's words as the batch search builds it, all in one transaction. The ratio is our queries per
 * second over the baseline's on the server (higher is better). Queries are pairs of rare words joined by AND, like names in a list:
 * most match a handful of documents. The corpus is vacuumed once written, as autovacuum would do on a server: until
 * then every text search also reads the GIN indexes' lists of pending entries (several MB).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { BatchSearchRepo } from "../src/domain/batch-search/BatchSearchRepo.ts"
import { contentQuery, embeddedQuery } from "../src/domain/batch-search/EmbeddedBatchSearch.ts"
import { Engine } from "../src/engine/Engine.ts"
import { BatchSearchJob } from "../src/engine/kinds/BatchSearchJob.ts"
import { BatchSearchJobLive } from "../src/engine/kinds/BatchSearchJobLive.ts"
import { engineLayer } from "../src/engine/Layer.ts"
import { PostgresSearchBackend } from "../src/search/postgres/PostgresSearchBackend.ts"
import { maxResultWindow } from "../src/search/SearchBackend.ts"
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
    yield* repo.insert(uuid, {
      name: "bench",
      description: "",
      userId: "bench",
      published: false,
      projects: [corpusProject],
      queries,
      ...options
    })
    const started = performance.now()
    yield* engine.submit(BatchSearchJob, { uuid }, { userId: "bench", id: uuid })
    const end = yield* sql<{
      state: string
      results: number
    }>`SELECT b.state, b.batch_results AS results FROM batch_searches b WHERE b.uuid = ${uuid}`.pipe(
      Effect.map((rows) => rows[0]),
      Effect.filterOrFail((row) => row !== undefined && (row.state === "SUCCESS" || row.state === "FAILURE")),
      Effect.retry(Schedule.spaced("50 millis"))
    )
    const seconds = (performance.now() - started) / 1_000
    if (end?.state !== "SUCCESS") return yield* Effect.dieMessage(`the batch search ended ${JSON.stringify(end)}`)
    return { queriesPerSecond: Math.round(queries.length / seconds), results: end.results } satisfies Figures
  })

/**
 * Each query's count and its hits stored, one query after the other, in a table shaped like batch_search_results
 * (its indexes included, without the reference to a batch search); one transaction, so no query waits for a commit.
 */
const baselineRun = (queries: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE bench_batch_results (LIKE batch_search_results INCLUDING ALL)`
    const uuid = "00000000-0000-4000-8000-0000000000bf"
    const started = performance.now()
    yield* Effect.forEach(
      queries,
      (query, queryNumber) =>
        Effect.gen(function* () {
          // The query's words on the content, as the batch search builds its tsquery.
          const plan = embeddedQuery(query, options)
          if (plan === undefined) return yield* Effect.dieMessage(`the bench query ${query} is not made of plain words`)
          const tsquery = contentQuery(plan)
          yield* sql`SELECT count(*) FROM documents WHERE project = ${corpusProject} AND content_tsv @@ ${tsquery}::tsquery`
          yield* sql`INSERT INTO bench_batch_results (search_uuid, query_number, query, doc_nb, doc_id, root_id, doc_path, creation_date,
          content_type, content_length, prj_id)
        SELECT ${uuid}, ${queryNumber}, ${query}, row_number() OVER (ORDER BY ts_rank(content_tsv, ${tsquery}::tsquery) DESC) - 1, id, root_id,
          path, quarry_try_timestamptz(metadata ->> 'tika_metadata_dcterms_created'), content_type, content_length, project
        FROM documents WHERE project = ${corpusProject} AND content_tsv @@ ${tsquery}::tsquery
        ORDER BY ts_rank(content_tsv, ${tsquery}::tsquery) DESC LIMIT ${maxResultWindow}`
        }),
      { discard: true }
    ).pipe(sql.withTransaction)
    const seconds = (performance.now() - started) / 1_000
    const stored = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM bench_batch_results`
    return { queriesPerSecond: Math.round(queries.length / seconds), results: stored[0]?.count ?? 0 } satisfies Figures
  })

const measure = (kind: DatabaseKind, count: number) =>
  Effect.gen(function* () {
    yield* generateSearchCorpus
    yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`VACUUM ANALYZE documents`)
    const queries = queriesOf(count)
    const engine = engineLayer({})
    const context = yield* Layer.build(Layer.mergeAll(engine, BatchSearchJobLive.pipe(Layer.provide(engine))))
    const ours = yield* Effect.provide(oursRun(queries), context)
    const baseline = yield* baselineRun(queries)
    process.stdout.write(
      `${kind}: ${count} queries, ${ours.results} results: ${ours.queriesPerSecond} queries/s; baseline SQL ${baseline.queriesPerSecond} queries/s (${baseline.results} results)\n`
    )
    return { ours, baseline }
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(BatchSearchRepo.Default, PostgresSearchBackend).pipe(Layer.provideMerge(testDatabase(kind))))
  )

const ratio = (run: { ours: Figures; baseline: Figures }) =>
  Math.round((run.ours.queriesPerSecond / run.baseline.queriesPerSecond) * 100) / 100

export const run = async () => {
  const embedded = await Effect.runPromise(measure("pglite", Number(process.env.BENCH_BATCH_QUERIES_EMBEDDED ?? 2_000)))
  const server = postgresAvailable
    ? await Effect.runPromise(measure("postgres", Number(process.env.BENCH_BATCH_QUERIES ?? 10_000)))
    : undefined
  report("batch", {
    embeddedQueriesPerSecond: embedded.ours.queriesPerSecond,
    embeddedBaselineQueriesPerSecond: embedded.baseline.queriesPerSecond,
    embeddedRatio: ratio(embedded),
    ...(server === undefined
      ? { serverSkipped: "PostgreSQL server not reachable" }
      : {
          queriesPerSecond: server.ours.queriesPerSecond,
          baselineQueriesPerSecond: server.baseline.queriesPerSecond,
          results: server.ours.results
        }),
    ratio: ratio(server ?? embedded)
  })
}
