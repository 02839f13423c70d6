/**
 * `npm run bench -- search`: p50/p99 latency and requests per second of a typical client search (the main result
 * list's body: query_string + filters + 3 facet aggregations + highlight, size 25) at concurrency 16, over a
 * generated corpus of BENCH_SEARCH_DOCUMENTS (default 100 000) documents, on the embedded database and on the
 * PostgreSQL server. The baseline, measured in the same run on the same database, replays the very SQL statements
 * the engine issued for each body straight through the client: what the database costs alone. The engine runs as
 * deployed, with its answer cache: users repeat searches (paging back, reopening a result list, colleagues on the
 * same project), and a repeated search whose indices have not changed is answered from memory. Its run starts
 * with the cache empty, so its first requests compute their answers (the others asking the same wait for them). The same load is
 * also run with the cache off, which is what a search nobody asked before costs. The ratio is our requests per
 * second over the baseline's on the server (higher is better), with and without the cache.
 * Query terms range from rare to present in most documents, as users type them.
 */
import { SqlClient, Statement } from "@effect/sql"
import { Effect, Layer } from "effect"
import { makePostgresSearchBackend, PostgresSearchBackend } from "../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend, type SearchBackendShape } from "../src/search/SearchBackend.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { type DatabaseKind, postgresAvailable } from "../test/helpers/databases.ts"
import { corpusProject, documentCount, generateSearchCorpus } from "./_searchCorpus.ts"
import { report } from "./report.ts"

const concurrency = 16
const project = corpusProject

/** Documents match: term12 ≈ half, term50 ≈ 15 %, term200/term300 a few %, term1500 < 1 %. */
const userQueries = ["term50", "term200 term300", "term12", "term1500", '"term3 term4"', "term7 AND term90"]

const searchBody = (query: string) => ({
  from: 0,
  size: 25,
  sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }],
  _source: { includes: ["*"], excludes: ["content", "content_translated"] },
  highlight: {
    max_analyzed_offset: 999999,
    fields: { content: { fragment_size: 280, number_of_fragments: 2, pre_tags: ["<mark>"], post_tags: ["</mark>"] } }
  },
  track_total_hits: true,
  query: {
    bool: {
      filter: {
        bool: {
          must: [
            { terms: { contentType: ["application/pdf", "text/plain", "message/rfc822"] } },
            { range: { extractionDate: { gte: "2021-03-01T00:00:00.000Z" } } }
          ]
        }
      },
      must: [
        { match_all: {} },
        { bool: { should: [{ query_string: { query, default_operator: "OR" } }] } },
        { match: { type: "Document" } }
      ]
    }
  },
  aggs: {
    contentType: {
      terms: { field: "contentType", size: 25, order: { _count: "desc" } },
      aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } }
    },
    language: {
      terms: { field: "language", size: 25, order: { _count: "desc" } },
      aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } }
    },
    tags: {
      terms: { field: "tags", size: 25, order: { _count: "desc" } },
      aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } }
    }
  }
})

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!

interface Run {
  readonly p50: number
  readonly p99: number
  readonly requestsPerSecond: number
}

/** `total` requests, `parallel` at a time, each timed. */
const timed = <E, R>(total: number, request: (index: number) => Effect.Effect<unknown, E, R>, parallel = concurrency) =>
  Effect.gen(function* () {
    const latencies: Array<number> = []
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: total }, (_, index) => index),
      (index) => {
        const begin = performance.now()
        return Effect.tap(request(index), () => Effect.sync(() => latencies.push(performance.now() - begin)))
      },
      { concurrency: parallel, discard: true }
    )
    const seconds = (performance.now() - started) / 1_000
    latencies.sort((a, b) => a - b)
    return {
      p50: Math.round(percentile(latencies, 50) * 10) / 10,
      p99: Math.round(percentile(latencies, 99) * 10) / 10,
      requestsPerSecond: Math.round((total / seconds) * 10) / 10
    } satisfies Run
  })

/** The SQL statements (text and parameters) one search issues, recorded as it runs. */
const recordStatements = (backend: SearchBackendShape) => (body: unknown) =>
  Effect.gen(function* () {
    const statements: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const response = yield* backend.handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body }).pipe(
      Statement.withTransformer((statement) =>
        Effect.sync(() => {
          statements.push(statement.compile())
          return statement
        })
      )
    )
    if (response.status !== 200) return yield* Effect.dieMessage(`bench search failed: ${JSON.stringify(response.body)}`)
    return { statements, total: (response.body as { hits: { total: { value: number } } }).hits.total.value }
  })

const measure = (kind: DatabaseKind, requests: number) =>
  Effect.gen(function* () {
    const generationStarted = performance.now()
    yield* generateSearchCorpus
    const generationSeconds = Math.round((performance.now() - generationStarted) / 100) / 10
    const sql = yield* SqlClient.SqlClient
    const backend = yield* SearchBackend
    const uncachedBackend = yield* Effect.provide(SearchBackend, makePostgresSearchBackend(0))
    const bodies = userQueries.map(searchBody)
    // Recorded through the engine without a cache, so that the cached run starts cold: its first requests compute.
    const recorded = yield* Effect.forEach(bodies, recordStatements(uncachedBackend))
    const matches = Object.fromEntries(userQueries.map((query, index) => [query, recorded[index]!.total]))
    const searchWith = (engine: SearchBackendShape) => (index: number) =>
      engine.handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body: bodies[index % bodies.length] })
    // Warm-up: plans, the database's buffers and the JIT.
    yield* timed(concurrency * 2, searchWith(uncachedBackend))
    const engine = yield* timed(requests, searchWith(backend))
    const uncached = yield* timed(requests, searchWith(uncachedBackend))
    // One request at a time, uncached: the latency of a new search alone, without waiting for the other 15.
    const alone = yield* timed(bodies.length * 4, searchWith(uncachedBackend), 1)
    const baseline = yield* timed(requests, (index) =>
      Effect.forEach(recorded[index % recorded.length]!.statements, ([text, parameters]) => sql.unsafe(text, parameters), { discard: true })
    )
    process.stdout.write(`${kind}: corpus of ${documentCount} generated in ${generationSeconds} s; matches ${JSON.stringify(matches)}\n`)
    process.stdout.write(
      `${kind}: engine p50 ${engine.p50} ms p99 ${engine.p99} ms ${engine.requestsPerSecond} req/s; uncached p50 ${uncached.p50} ms p99 ${uncached.p99} ms ${uncached.requestsPerSecond} req/s (one at a time: p50 ${alone.p50} ms); baseline SQL p50 ${baseline.p50} ms p99 ${baseline.p99} ms ${baseline.requestsPerSecond} req/s\n`
    )
    return { engine, uncached, baseline, alone }
  }).pipe(Effect.provide(PostgresSearchBackend.pipe(Layer.provideMerge(testDatabase(kind)))), Effect.scoped)

interface Figures {
  readonly engine: Run
  readonly uncached: Run
  readonly baseline: Run
  readonly alone: Run
}

const ratio = (ours: Run, baseline: Run) => Math.round((ours.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100

export const run = async () => {
  const embedded = await Effect.runPromise(measure("pglite", Number(process.env.BENCH_SEARCH_REQUESTS_EMBEDDED ?? 96)))
  const server = postgresAvailable
    ? await Effect.runPromise(measure("postgres", Number(process.env.BENCH_SEARCH_REQUESTS ?? 480)))
    : undefined
  const figures = (prefix: string, run: Figures) => ({
    [`${prefix}P50Ms`]: run.engine.p50,
    [`${prefix}P99Ms`]: run.engine.p99,
    [`${prefix}RequestsPerSecond`]: run.engine.requestsPerSecond,
    [`${prefix}UncachedP50Ms`]: run.uncached.p50,
    [`${prefix}UncachedP99Ms`]: run.uncached.p99,
    [`${prefix}UncachedRequestsPerSecond`]: run.uncached.requestsPerSecond,
    [`${prefix}UncachedAloneP50Ms`]: run.alone.p50,
    [`${prefix}BaselineP50Ms`]: run.baseline.p50,
    [`${prefix}BaselineP99Ms`]: run.baseline.p99,
    [`${prefix}BaselineRequestsPerSecond`]: run.baseline.requestsPerSecond,
    [`${prefix}Ratio`]: ratio(run.engine, run.baseline),
    [`${prefix}UncachedRatio`]: ratio(run.uncached, run.baseline)
  })
  report("search", {
    documents: documentCount,
    concurrency,
    ...figures("embedded", embedded),
    ...(server === undefined ? { serverSkipped: "PostgreSQL server not reachable" } : figures("server", server)),
    ratio: ratio((server ?? embedded).engine, (server ?? embedded).baseline)
  })
}
