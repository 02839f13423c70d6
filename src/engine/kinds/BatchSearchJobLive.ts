import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Either, Option } from "effect"
import { Settings } from "../../config/Settings.ts"
import { errorReason, hitsOf, searchBody, type Hit } from "../../domain/batch-search/BatchQuery.ts"
import { BatchSearchRepo, type ResultToStore } from "../../domain/batch-search/BatchSearchRepo.ts"
import { type EmbeddedQuery, embeddedQuery, projectsIndexed, searchEmbedded } from "../../domain/batch-search/EmbeddedBatchSearch.ts"
import { maxResultWindow, SearchBackend } from "../../search/SearchBackend.ts"
import { JobQueue } from "../JobQueue.ts"
import { BatchQueryFailed, BatchSearchJob } from "./BatchSearchJob.ts"

/** Results of a whole batch search are capped, as in the reference (60 000 less one scroll page). */
const maxBatchResults = 60_000 - 3_500
/**
 * Results kept of one query: paging with from/size reaches no further than the backends' result window (ES's
 * index.max_result_window, which the embedded engine applies too).
 */
const maxQueryResults = maxResultWindow
/** Queries searched at once through the search backend: they are independent, and the database serves several connections. */
const searchesAtOnce = 4
/**
 * Queries the embedded engine answers in one statement: enough that planning and round trips are a small part of
 * its time, few enough that progress (written at each flush) moves while a short batch search runs.
 */
const queriesPerStatement = 25
/** Documents asked of the search backend per request. */
const pageSize = 1_000
/** Result rows per INSERT, and pending rows that make a flush. */
const rowsPerInsert = 1_000
/** Finished queries written together at most. */
const queriesPerFlush = 100

/**
 * Whether the search backend is the embedded engine, which reads this database's documents: Quarry chooses it
 * when `elasticsearchAddress` is unset (src/Quarry.ts). Without settings (tests, benchmarks) it is the one given.
 */
const embeddedBackend = Effect.map(Effect.serviceOption(Settings), (settings) =>
  Option.match(settings, { onNone: () => true, onSome: ({ elasticsearchAddress }) => elasticsearchAddress === undefined })
)

interface PendingQuery {
  readonly queryNumber: number
  readonly query: string
}

/** Queries searched together: by the embedded statement, or through the search backend. */
type Window =
  | { readonly embedded: true; readonly queries: Array<PendingQuery & { readonly plan: EmbeddedQuery }> }
  | { readonly embedded: false; readonly queries: Array<PendingQuery> }

/** Consecutive queries answered the same way, in CSV order: up to `queriesPerStatement` embedded, `searchesAtOnce` others. */
const windowsOf = (queries: ReadonlyArray<PendingQuery & { readonly plan: EmbeddedQuery | undefined }>) => {
  const windows: Array<Window> = []
  for (const { queryNumber, query, plan } of queries) {
    const last = windows[windows.length - 1]
    if (plan !== undefined) {
      if (last?.embedded === true && last.queries.length < queriesPerStatement) last.queries.push({ queryNumber, query, plan })
      else windows.push({ embedded: true, queries: [{ queryNumber, query, plan }] })
    } else if (last?.embedded === false && last.queries.length < searchesAtOnce) {
      last.queries.push({ queryNumber, query })
    } else {
      windows.push({ embedded: false, queries: [{ queryNumber, query }] })
    }
  }
  return windows
}

export const BatchSearchJobLive = BatchSearchJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* BatchSearchRepo
    const backend = yield* SearchBackend
    const found = yield* repo.find(payload.uuid)
    // Deleted while it waited: nothing to run.
    if (Option.isNone(found)) return 0
    const search = found.value
    const done = Option.getOrElse(context.checkpoint.saved, () => 0)
    const queries = yield* repo.pendingQueries(search.uuid, done)
    // A query cut off by a restart left no rows (its writes are one transaction); the counts are made again.
    yield* repo.start(search.uuid)

    /** Every hit of a query, in relevance order, within what the batch may still store. */
    const searchQuery = (query: string, room: number) =>
      Effect.gen(function* () {
        const hits: Array<Hit> = []
        while (hits.length < room) {
          const size = Math.min(pageSize, room - hits.length)
          const response = yield* backend.handle({
            method: "POST",
            path: `${search.projects.join(",")}/_search`,
            query: new URLSearchParams(),
            body: searchBody(query, search, hits.length, size)
          })
          if (response.status !== 200) return yield* new BatchQueryFailed({ query, message: errorReason(response.body) })
          const page = hitsOf(response.body)
          hits.push(...page)
          if (page.length < size) break
        }
        return hits
      })

    // Finished queries wait here until a flush writes their results, their counts and the checkpoint in one
    // transaction: a restart resumes after the last query flushed, and writes take few round trips.
    let pending: Array<ResultToStore> = []
    let pendingCounts: Array<{ queryNumber: number; count: number }> = []
    let finished = done
    const flush = Effect.suspend(() => {
      const rows = pending
      const counts = pendingCounts
      pending = []
      pendingCounts = []
      if (counts.length === 0) return Effect.void
      return sql
        .withTransaction(
          Effect.gen(function* () {
            yield* Effect.forEach(Arr.chunksOf(rows, rowsPerInsert), (chunk) => repo.insertResults(search.uuid, chunk), { discard: true })
            yield* repo.setQueryResults(search.uuid, counts)
            yield* context.checkpoint.save(finished)
          })
        )
        .pipe(
          // The repository's statements die on SqlError themselves: what fails here is BEGIN or COMMIT.
          Effect.orDie,
          Effect.zipRight(context.reportProgress(finished / search.nbQueries))
        )
    })

    // Queries the embedded engine can answer from the documents table go to it many at a time; the others, and every
    // query on Elasticsearch or on a project without an index (which the backend refuses), go through the backend.
    const direct = (yield* embeddedBackend) && (yield* Effect.orDie(projectsIndexed(search.projects)))
    const planned = queries.map((query) => ({ ...query, plan: direct ? embeddedQuery(query.query, search) : undefined }))

    let stored = yield* repo.resultCount(search.uuid)

    /** The hits of queries the embedded statement answers, each within `room`, all within what the batch may store. */
    const embeddedAnswers = (window: ReadonlyArray<PendingQuery & { readonly plan: EmbeddedQuery }>, room: number) =>
      room <= 0
        ? Effect.succeed(window.map(() => Either.right<ReadonlyArray<Hit>>([])))
        : Effect.map(
            Effect.orDie(searchEmbedded(search.projects, search, window, { perQuery: room, total: maxBatchResults - stored })),
            (hits) => window.map(({ queryNumber }) => Either.right<ReadonlyArray<Hit>>(hits.get(queryNumber) ?? []))
          )

    for (const window of windowsOf(planned)) {
      // The window's searches run together, each asking for what the batch could still store before it; the hits
      // are then taken in CSV order within what is left, the same documents a one-by-one run would store.
      const room = Math.min(maxQueryResults, maxBatchResults - stored)
      const answerOf = (query: string): Effect.Effect<Either.Either<ReadonlyArray<Hit>, BatchQueryFailed>> =>
        room <= 0 ? Effect.succeed(Either.right([])) : Effect.either(searchQuery(query, room))
      const answers = window.embedded
        ? yield* embeddedAnswers(window.queries, room)
        : yield* Effect.forEach(window.queries, ({ query }) => answerOf(query), { concurrency: searchesAtOnce })
      for (const [position, { queryNumber, query }] of window.queries.entries()) {
        const answer = answers[position]!
        // The queries before a refused one keep their results.
        if (Either.isLeft(answer)) return yield* Effect.zipRight(flush, Effect.fail(answer.left))
        const hits = answer.right.slice(0, Math.max(0, Math.min(maxQueryResults, maxBatchResults - stored)))
        hits.forEach((hit, rank) => pending.push({ queryNumber, query, rank, hit }))
        pendingCounts.push({ queryNumber, count: hits.length })
        stored += hits.length
        finished += 1
        // Checked after each query: a window of the embedded statement may hold several flushes' worth of rows.
        if (pending.length >= rowsPerInsert || pendingCounts.length >= queriesPerFlush) yield* flush
      }
    }
    yield* flush
    yield* repo.finish(search.uuid, "SUCCESS", null, null)
    return stored
  }).pipe(
    Effect.tapError((error) =>
      Effect.flatMap(BatchSearchRepo, (repo) =>
        repo.finish(payload.uuid, "FAILURE", `SearchException: query='${error.query}' message='${error.message}'`, error.query)
      )
    ),
    // A stop (the task CANCELLED) ends the batch search in the database as the task is cancelled (migration 0130), even
    // before the handler runs; a handler already running may write after that (its start, a failed query), so it ends
    // it again on its way out, interrupted or failed. A shutdown leaves it RUNNING for the next process.
    Effect.ensuring(
      Effect.gen(function* () {
        if (yield* (yield* JobQueue).isCancelled(context.taskId)) yield* (yield* BatchSearchRepo).failStopped(payload.uuid)
      }).pipe(Effect.ignoreLogged)
    )
  )
)
