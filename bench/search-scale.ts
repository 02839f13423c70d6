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
import { fold } from "../src/search/postgres/TextIndex.ts"
import { SearchBackend, type SearchBackendShape } from "../src/search/SearchBackend.ts"
import { isolatedHome, startQuarry } from "../test/cli/quarryProcess.ts"
import { TestDatabaseUrl, testDatabase } from "../test/engine/helpers.ts"
import { type DatabaseKind, postgresAvailable } from "../test/helpers/databases.ts"
import { clientQuery, percentile, round, searchBody } from "./_clientSearch.ts"
import { realDocuments, unpackedDir } from "./_realDocs.ts"
import { generateScaleCorpus, generatedRoot, random } from "./_scaleCorpus.ts"
import { report } from "./report.ts"
import { sampleStatusApart } from "./_statusSampler.ts"

const sizes = (process.env.BENCH_SCALE_SIZES ?? "10000,100000,1000000").split(",").map(Number)
const embeddedMax = Number(process.env.BENCH_SCALE_EMBEDDED_MAX ?? 100_000)
const realFiles = Number(process.env.BENCH_SCALE_REAL_FILES ?? 10_000)
const perClass = Number(process.env.BENCH_SCALE_QUERIES ?? 8)
const databases = (process.env.BENCH_SCALE_DATABASES ?? "postgres,pglite").split(",") as ReadonlyArray<DatabaseKind>
const concurrencies = [1, 8] as const
/** Documents read for word frequencies and phrases: enough that a "rare" word (one of them) is rare indeed. */
const sampleDocuments = 3_000

// ---- Requests ----

type QueryClass = "common" | "medium" | "rare" | "twoWords" | "phrase" | "facets"
const classes: ReadonlyArray<QueryClass> = ["common", "medium", "rare", "twoWords", "phrase", "facets"]

interface Query {
  readonly queryClass: QueryClass
  readonly body: unknown
  /** The same words for the baseline: `|` between words (query_string's default OR), `<->` in a phrase. */
  readonly tsquery: string
}

const termsFacet = (field: string) => ({
  terms: { field, size: 25, order: { _count: "desc" } },
  aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } }
})

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The client's facet requests: no hits, the same query, one aggregation each. */
const facetAggregations = (root: string): ReadonlyArray<Record<string, unknown>> => [
  { contentType: termsFacet("contentType") },
  { language: termsFacet("language") },
  { tags: termsFacet("tags") },
  { extractionLevel: termsFacet("extractionLevel") },
  {
    dirname: {
      terms: {
        field: "dirname.tree",
        include: `${escapeRegex(root)}/.*`,
        exclude: `${escapeRegex(root)}/.*/.*`,
        size: 50,
        order: { _key: "asc" }
      }
    }
  },
  { extractionDate: { date_histogram: { field: "extractionDate", calendar_interval: "1M", format: "yyyy-MM", min_doc_count: 1 } } }
]

const facetBody = (words: string, aggs: Record<string, unknown>) => ({ size: 0, track_total_hits: true, query: clientQuery(words), aggs })

/** A deterministic shuffle, so that runs pick the same words. */
const shuffled = <A>(items: ReadonlyArray<A>, seed: number) => {
  const next = random(seed)
  return items
    .map((item) => [next(), item] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, item]) => item)
}

const plainWord = /^[a-z]{3,}$/

interface QuerySet {
  readonly queries: ReadonlyArray<Query>
  /** Medium words no measured query uses, for warm-up requests. */
  readonly spareWords: ReadonlyArray<string>
  /** Every medium word, for the HTTP server's searches (a process of its own, so none is in its cache). */
  readonly mediumWords: ReadonlyArray<string>
}

/**
 * Words by document frequency in a sample of the corpus (ts_stat over its tsvectors): common in at least a quarter
 * of the documents, medium in 1–5 %, rare in one sampled document and at most three of the corpus; phrases are two
 * adjacent words of sampled texts.
 */
const pickQueries = (project: string, documents: number, root: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const percent = Math.min(100, (sampleDocuments * 100) / documents)
    // ts_stat takes its query as text; the project names are this file's own.
    const sample = `FROM documents TABLESAMPLE SYSTEM (${percent}) REPEATABLE (7) WHERE project = '${project}'`
    const sampled = (yield* sql.unsafe<{ sampled: number }>(`SELECT count(*)::int AS sampled ${sample}`))[0]!.sampled
    const stats = yield* sql.unsafe<{ word: string; ndoc: number }>(`SELECT word, ndoc FROM ts_stat($$SELECT content_tsv ${sample}$$)`)
    const words = stats.filter((row) => plainWord.test(row.word))
    const bucket = (test: (share: number, ndoc: number) => boolean, seed: number) =>
      shuffled(
        words.filter((row) => test(row.ndoc / sampled, row.ndoc)).map((row) => row.word),
        seed
      )
    const common = bucket((share) => share >= 0.25, 1).slice(0, perClass)
    const medium = bucket((share) => share >= 0.01 && share <= 0.05, 2)
    // A word once in the sample can be in hundreds of documents of a large corpus: a rare word is one the index finds
    // in at most three documents of the whole corpus, whatever its size.
    const rare: Array<string> = []
    for (const word of bucket((_, ndoc) => ndoc === 1, 3).slice(0, 200)) {
      if (rare.length === perClass) break
      const [counted] = yield* sql<{ documents: number }>`
        SELECT count(*)::int AS documents FROM documents WHERE project = ${project} AND content_tsv @@ ${word}::tsquery`
      if (counted!.documents <= 3) rare.push(word)
    }
    const texts = yield* sql.unsafe<{ text: string }>(`SELECT left(content, 4000) AS text ${sample} LIMIT ${perClass * 4}`)
    const phrases = [
      ...new Set(
        texts.flatMap((row, index) => {
          const tokens = fold(row.text).split(/\s+/)
          const start = Math.floor(random(index)() * tokens.length)
          for (let i = start; i < tokens.length - 1; i++) {
            if (plainWord.test(tokens[i]!) && plainWord.test(tokens[i + 1]!)) return [`${tokens[i]} ${tokens[i + 1]}`]
          }
          return []
        })
      )
    ].slice(0, perClass)
    const single =
      (queryClass: QueryClass) =>
      (word: string): Query => ({ queryClass, body: searchBody(word), tsquery: word })
    const pairs = Array.from(
      { length: Math.min(perClass, Math.floor(medium.length / 2)) },
      (_, i) => [medium[2 * i]!, medium[2 * i + 1]!] as const
    )
    const facets = facetAggregations(root)
    const queries: Array<Query> = [
      ...common.map(single("common")),
      ...medium.slice(0, perClass).map(single("medium")),
      ...rare.map(single("rare")),
      ...pairs.map(([a, b]) => ({ queryClass: "twoWords" as const, body: searchBody(`${a} ${b}`), tsquery: `${a} | ${b}` })),
      ...phrases.map((phrase) => ({
        queryClass: "phrase" as const,
        body: searchBody(`"${phrase}"`),
        tsquery: phrase.replace(" ", " <-> ")
      })),
      ...medium
        .slice(0, perClass)
        .map((word, i) => ({ queryClass: "facets" as const, body: facetBody(word, facets[i % facets.length]!), tsquery: word }))
    ]
    return { queries: shuffled(queries, 4), spareWords: medium.slice(2 * perClass), mediumWords: medium } satisfies QuerySet
  })

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

// ---- Bounded searches and the HTTP server ----

interface Answer {
  readonly status: number | "noAnswer"
  readonly ms: number
  /** Matching documents, to tell a search that did its work from one that found nothing. */
  readonly hits?: number
  readonly errorType?: string
}

const postSearch = (url: string, project: string, body: unknown) =>
  Effect.promise(async (): Promise<Answer> => {
    const begin = performance.now()
    try {
      const response = await fetch(`${url}/api/index/search/${project}/_search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        // Far past any deadline: a search still running then is reported as unanswered.
        signal: AbortSignal.timeout(60_000)
      })
      const answer = (await response.json()) as { hits?: { total: { value: number } }; error?: { type?: string } }
      const ms = round(performance.now() - begin)
      if (answer.hits !== undefined) return { status: response.status, ms, hits: answer.hits.total.value }
      return answer.error?.type === undefined
        ? { status: response.status, ms }
        : { status: response.status, ms, errorType: answer.error.type }
    } catch {
      return { status: "noAnswer", ms: round(performance.now() - begin) }
    }
  })

const bounded = (project: string, set: QuerySet) =>
  Effect.gen(function* () {
    const url = yield* TestDatabaseUrl
    const home = yield* isolatedHome
    const server = yield* startQuarry(
      ["serve", "--tcpListenPort", "0", "--dataSourceUrl", url, "--dataDir", home, "--defaultProject", project],
      home
    )
    const sampler = yield* sampleStatusApart(server.url)
    const [word, ...others] = set.mediumWords.filter((candidate) => candidate.length >= 5)
    const target = word ?? set.mediumWords[0]!
    const expensive: Record<string, object> = {
      fuzzy: { size: 25, track_total_hits: true, query: { fuzzy: { content: { value: target, fuzziness: 2 } } } },
      eightFuzzyTerms: searchBody([target, ...others.slice(0, 7)].map((term) => `${term}~2`).join(" ")),
      leadingWildcard: searchBody(`*${target.slice(-3)}`),
      prefix: searchBody(`${target.slice(0, 3)}*`),
      regexp: { size: 25, track_total_hits: true, query: { regexp: { content: { value: `${target.slice(0, 2)}.*${target.slice(-2)}` } } } }
    }
    // As clients send them (the engine's default timeout applies), then with ES's `timeout` set to the 1 s bound.
    const searches: Record<string, Answer> = {}
    for (const [name, body] of Object.entries(expensive)) {
      searches[name] = yield* postSearch(server.url, project, body)
      searches[`${name}Timeout1s`] = yield* postSearch(server.url, project, { ...body, timeout: "1s" })
      process.stdout.write(
        `bounded ${name}: ${JSON.stringify(searches[name])}; with timeout 1s: ${JSON.stringify(searches[`${name}Timeout1s`])}\n`
      )
    }
    const loadWords = set.mediumWords.slice(0, 200)
    const started = performance.now()
    const answers = yield* Effect.forEach(loadWords, (term) => postSearch(server.url, project, searchBody(term)), {
      concurrency: "unbounded"
    })
    const loadSeconds = round((performance.now() - started) / 1_000)
    const samples = yield* sampler.stop
    const latencies = [...samples.latencies]
    const statuses: Record<string, number> = {}
    for (const answer of answers) statuses[String(answer.status)] = (statuses[String(answer.status)] ?? 0) + 1
    latencies.sort((a, b) => a - b)
    const figures = {
      searches,
      concurrentSearches: loadWords.length,
      concurrentStatuses: statuses,
      concurrentUnexpected: answers.filter((answer) => ![200, 429, 503].includes(answer.status as number)).length,
      concurrentSeconds: loadSeconds,
      concurrentP50Ms: round(
        percentile(
          answers.map((answer) => answer.ms).sort((a, b) => a - b),
          50
        )
      ),
      statusSamples: latencies.length,
      statusP50Ms: round(percentile(latencies, 50)),
      statusP99Ms: round(percentile(latencies, 99)),
      statusMaxMs: round(latencies.at(-1) ?? 0),
      statusFailures: samples.failures
    }
    process.stdout.write(
      `bounded: ${loadWords.length} concurrent searches ${JSON.stringify(statuses)} in ${loadSeconds} s; /api/status p99 ${figures.statusP99Ms} ms over ${latencies.length} samples\n`
    )
    return figures
  }).pipe(Effect.scoped)

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
    const set = yield* pickQueries(project, documents, generatedRoot)
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
    const set = yield* pickQueries(project, facts.documents, dir)
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
