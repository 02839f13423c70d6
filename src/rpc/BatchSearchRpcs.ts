import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { BatchSearchFilter, batchSearchStates } from "../domain/batch-search/BatchSearch.ts"
import {
  BatchSearchForbidden,
  BatchSearchNotFound,
  BatchSearchNotShared,
  InvalidBatchSearch,
  TooManyQueries
} from "../domain/batch-search/BatchSearchErrors.ts"
import { LegacyProject } from "../domain/project/Project.ts"
import { ProjectForbidden } from "../domain/project/ProjectErrors.ts"
import { TaskForbidden, TaskNotFound } from "../domain/task/TaskErrors.ts"
import { LegacyUser } from "../domain/user/User.ts"

/** A batch search as the legacy API lists it. */
export const BatchSearchRecord = Schema.Struct({
  uuid: Schema.String,
  published: Schema.Boolean,
  projects: Schema.Array(LegacyProject),
  name: Schema.String,
  description: Schema.String,
  user: LegacyUser,
  state: Schema.Literal(...batchSearchStates),
  date: Schema.String,
  nbQueries: Schema.Number,
  nbResults: Schema.Number,
  errorMessage: Schema.NullOr(Schema.String),
  errorQuery: Schema.NullOr(Schema.String)
})

/** One batch search with its options, and its queries with their result counts when asked for. */
export const BatchSearchDetails = Schema.Struct({
  ...BatchSearchRecord.fields,
  queries: Schema.Record({ key: Schema.String, value: Schema.Number }),
  fileTypes: Schema.Array(Schema.String),
  tags: Schema.Array(Schema.String),
  paths: Schema.Array(Schema.String),
  fuzziness: Schema.Number,
  phraseMatches: Schema.Boolean
})

/** A document a query found. */
export const BatchSearchResult = Schema.Struct({
  query: Schema.String,
  project: Schema.NullOr(Schema.String),
  documentId: Schema.String,
  rootId: Schema.String,
  documentPath: Schema.String,
  creationDate: Schema.NullOr(Schema.String),
  contentType: Schema.NullOr(Schema.String),
  contentLength: Schema.NullOr(Schema.Number),
  documentNumber: Schema.Number
})

const Texts = Schema.optional(Schema.Array(Schema.String))

/**
 * The batch-search API for internal tools, served at `/rpc`. A batch search runs each of its queries on its
 * projects and stores the documents found; creation takes the legacy form's options, with the queries as a list.
 */
export class BatchSearchRpcs extends RpcGroup.make(
  /** Queues a new batch search on projects of the caller's; answers its uuid (also its task's id). */
  Rpc.make("createBatchSearch", {
    payload: {
      projects: Schema.NonEmptyArray(Schema.String),
      name: Schema.String,
      /** Queries of two characters or more are run, each once, in this order; fewer than 60 000. */
      queries: Schema.Array(Schema.String),
      description: Schema.optional(Schema.String),
      published: Schema.optional(Schema.Boolean),
      phraseMatches: Schema.optional(Schema.Boolean),
      fuzziness: Schema.optional(Schema.NonNegativeInt),
      fileTypes: Texts,
      paths: Texts,
      tags: Texts
    },
    success: Schema.String,
    error: Schema.Union(InvalidBatchSearch, TooManyQueries, ProjectForbidden)
  }),
  /** The caller's batch searches and the published ones on projects the caller may all use, newest first. */
  Rpc.make("listBatchSearches", { success: Schema.Array(BatchSearchRecord) }),
  /** A page of the visible batch searches matching the filter (the body of POST /api/batch/search), and their total. */
  Rpc.make("filterBatchSearches", {
    payload: BatchSearchFilter,
    success: Schema.Struct({ items: Schema.Array(BatchSearchRecord), total: Schema.Number })
  }),
  Rpc.make("getBatchSearch", {
    payload: { uuid: Schema.String, withQueries: Schema.optional(Schema.Boolean) },
    success: BatchSearchDetails,
    error: Schema.Union(BatchSearchNotFound, BatchSearchForbidden)
  }),
  /**
   * The results in query then rank order, read from the database `pageSize` rows at a time (default 500). With
   * `follow`, the results of a batch search still running arrive as it stores them, and the stream ends with it.
   */
  Rpc.make("batchSearchResults", {
    payload: {
      uuid: Schema.String,
      queries: Texts,
      queriesExcluded: Schema.optional(Schema.Boolean),
      contentTypes: Texts,
      pageSize: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000))),
      follow: Schema.optional(Schema.Boolean)
    },
    success: BatchSearchResult,
    error: Schema.Union(BatchSearchNotFound, BatchSearchNotShared, BatchSearchForbidden),
    stream: true
  }),
  /** Runs a visible batch search again for the caller, with its queries and options; answers the new uuid. */
  Rpc.make("copyBatchSearch", {
    payload: { uuid: Schema.String, name: Schema.optional(Schema.String), description: Schema.optional(Schema.String) },
    success: Schema.String,
    error: Schema.Union(BatchSearchNotFound, BatchSearchForbidden)
  }),
  /** Publishes (or unpublishes) one of the caller's batch searches: published ones are visible to every user of their projects. */
  Rpc.make("publishBatchSearch", {
    payload: { uuid: Schema.String, published: Schema.Boolean },
    error: Schema.Union(BatchSearchNotFound, BatchSearchForbidden)
  }),
  /** Cancels the caller's queued or running batch search (it ends in FAILURE); false when it had already ended. */
  Rpc.make("stopBatchSearch", {
    payload: { uuid: Schema.String },
    success: Schema.Boolean,
    error: Schema.Union(TaskNotFound, TaskForbidden)
  }),
  /** Deletes one of the caller's batch searches with its results; false when there was none or it is running. Every
   * batch-search RPC answers BatchSearchForbidden for one on a project the caller may not use. */
  Rpc.make("deleteBatchSearch", { payload: { uuid: Schema.String }, success: Schema.Boolean, error: BatchSearchForbidden })
) {}
