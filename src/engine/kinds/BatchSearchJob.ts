import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { errorReason, hitsOf, searchBody, type Hit } from "../../domain/batch-search/BatchQuery.ts"
import { BatchSearchRepo } from "../../domain/batch-search/BatchSearchRepo.ts"
import { SearchBackend } from "../../search/SearchBackend.ts"
import * as JobKind from "../JobKind.ts"

/** Results of a whole batch search are capped, as in the reference (60 000 less one scroll page). */
export const maxBatchResults = 60_000 - 3_500
/** Documents asked of the search backend per request. */
const pageSize = 1_000
/** Result rows per INSERT. */
const rowsPerInsert = 1_000

export const BatchSearchPayload = Schema.Struct({ uuid: Schema.String })

/** A query the search backend refused: the batch search ends in FAILURE with it. */
export class BatchQueryFailed extends Schema.TaggedError<BatchQueryFailed>()("BatchQueryFailed", {
  query: Schema.String,
  message: Schema.String
}) {}

/**
 * Runs a batch search (legacy-api-reference §5): QUEUED → RUNNING → SUCCESS, or FAILURE at the first query the
 * backend refuses (results of the queries before it are kept). Queries run in CSV order; each query's results and
 * the number of queries done are written in one transaction, so a restarted task resumes after the last finished
 * query. A stop marks the batch search FAILURE. One batch search runs at a time, as in the reference.
 */
export const BatchSearchJob = JobKind.make({
  name: "batchSearch",
  runnerType: "org.icij.datashare.tasks.BatchSearchRunner",
  payload: BatchSearchPayload,
  success: Schema.Int,
  error: BatchQueryFailed,
  /** Queries finished. */
  checkpoint: Schema.Int,
  concurrency: 1
})

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

    let stored = yield* repo.resultCount(search.uuid)
    for (const [position, { queryNumber, query }] of queries.entries()) {
      const hits = stored >= maxBatchResults ? [] : yield* searchQuery(query, maxBatchResults - stored)
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* Effect.forEach(Arr.chunksOf(hits, rowsPerInsert), (chunk, chunkIndex) =>
            repo.insertResults(search.uuid, queryNumber, query, chunkIndex * rowsPerInsert, chunk), { discard: true })
          yield* repo.setQueryResults(search.uuid, queryNumber, hits.length)
          yield* context.checkpoint.save(done + position + 1)
        })
      )
      stored += hits.length
      yield* context.reportProgress((done + position + 1) / search.nbQueries)
    }
    yield* repo.finish(search.uuid, "SUCCESS", null, null)
    return stored
  }).pipe(
    Effect.catchTag("SqlError", Effect.die),
    Effect.tapError((error) =>
      Effect.flatMap(BatchSearchRepo, (repo) =>
        repo.finish(payload.uuid, "FAILURE", `SearchException: query='${error.query}' message='${error.message}'`, error.query)
      ).pipe(Effect.orDie)
    ),
    // A stop (the task CANCELLED) ends the batch search; a shutdown leaves it RUNNING for the next process.
    Effect.onInterrupt(() =>
      Effect.flatMap(BatchSearchRepo, (repo) => repo.failIfCancelled(payload.uuid, context.taskId)).pipe(Effect.ignoreLogged)
    )
  )
)
