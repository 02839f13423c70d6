import { Schema } from "effect"
import * as JobKind from "../JobKind.ts"

export const BatchSearchPayload = Schema.Struct({ uuid: Schema.String })

/** A query the search backend refused: the batch search ends in FAILURE with it. */
export class BatchQueryFailed extends Schema.TaggedError<BatchQueryFailed>()("BatchQueryFailed", {
  query: Schema.String,
  message: Schema.String
}) {}

/**
 * Runs a batch search: QUEUED → RUNNING → SUCCESS, or FAILURE at the first query the
 * backend refuses (results of the queries before it are kept). Queries run in CSV order; finished queries are
 * written together (BatchSearchJobLive.ts), their results, counts and the number of queries done in
 * one transaction, so a restarted task resumes after the last query written. A stop marks the batch search FAILURE. One batch search runs at a time, as in the reference.
 * On the embedded engine, plain queries are answered many at a time by one statement (EmbeddedBatchSearch.ts).
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
