import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class BatchSearchNotFound extends Schema.TaggedError<BatchSearchNotFound>()(
  "BatchSearchNotFound",
  { uuid: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return "Batch search not found."
  }
}

/** A creation request the reference refuses: no name, no CSV file, no query left. */
export class InvalidBatchSearch extends Schema.TaggedError<InvalidBatchSearch>()(
  "InvalidBatchSearch",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** 60 000 distinct queries or more. */
export class TooManyQueries extends Schema.TaggedError<TooManyQueries>()(
  "TooManyQueries",
  { count: Schema.Number, limit: Schema.Number },
  HttpApiSchema.annotations({ status: 413 })
) {
  override get message() {
    return `a batch search holds fewer than ${this.limit} queries (this one has ${this.count})`
  }
}

/** Results of an unpublished batch search asked by someone else than its owner. */
export class BatchSearchNotShared extends Schema.TaggedError<BatchSearchNotShared>()(
  "BatchSearchNotShared",
  { uuid: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {
  override get message() {
    return "this batch search is neither yours nor published"
  }
}

/**
 * A batch search on a project the caller may not use: its queries, results and options come from every one of its
 * projects, so owning or having it published is not enough.
 */
export class BatchSearchForbidden extends Schema.TaggedError<BatchSearchForbidden>()(
  "BatchSearchForbidden",
  { uuid: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return "you do not have access to every project of this batch search"
  }
}

/** The seed answers 500 for an `orderBy` that names no column of the queries. */
export class UnknownQueryColumn extends Schema.TaggedError<UnknownQueryColumn>()(
  "UnknownQueryColumn",
  { column: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {
  override get message() {
    return `cannot order queries by ${this.column}: no such column`
  }
}
