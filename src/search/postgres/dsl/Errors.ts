import { Schema } from "effect"

/**
 * A request the engine refuses, answered as Elasticsearch would: status 400 (404 for a missing index or record)
 * and an ES error body. `esType` is the ES exception name clients see in `error.type` and `root_cause`.
 */
export class SearchRequestError extends Schema.TaggedError<SearchRequestError>()("SearchRequestError", {
  esType: Schema.String,
  reason: Schema.String,
  status: Schema.Number,
  /** Extra keys of the ES error object (`index` of index_not_found_exception…). */
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  /** The shard-level cause of a `search_phase_execution_exception`, which ES shows as the root cause. */
  rootCause: Schema.optional(Schema.Struct({ type: Schema.String, reason: Schema.String })),
  /** The cause ES names under `caused_by` of an error that is its own root cause (a parse failure's reason). */
  causedBy: Schema.optional(Schema.Struct({ type: Schema.String, reason: Schema.String }))
}) {
  override get message() {
    return `${this.esType}: ${this.reason}`
  }
}

/** A construct of the ES DSL this engine does not implement (scripts, geo queries, composite aggregations…). */
export const unsupported = (construct: string) =>
  new SearchRequestError({
    esType: "illegal_argument_exception",
    reason: `unsupported [${construct}] by embedded engine`,
    status: 400
  })

/** A value the engine cannot use where it is (a bad number, a bad regular expression, an unknown join type…). */
export const illegalArgument = (reason: string) => new SearchRequestError({ esType: "illegal_argument_exception", reason, status: 400 })

/** A body that is not valid JSON or does not have the shape of an ES request. */
export const parsingError = (reason: string) => new SearchRequestError({ esType: "parsing_exception", reason, status: 400 })

export const indexNotFound = (index: string) =>
  new SearchRequestError({
    esType: "index_not_found_exception",
    reason: `no such index [${index}]`,
    status: 404,
    details: { index, "resource.type": "index_or_alias", "resource.id": index }
  })

/**
 * A query every shard refused, as ES 7 answers it: `search_phase_execution_exception` "all shards failed" with the
 * shard's error as root cause and `caused_by` (too many clauses, a regular expression too long or too complex).
 */
export const shardFailure = (type: string, reason: string, status = 400) =>
  new SearchRequestError({ esType: "search_phase_execution_exception", reason: "all shards failed", status, rootCause: { type, reason } })

/** `indices.query.bool.max_clause_count`: clauses of one bool query, and words a term expands to. */
export const maxClauseCount = 1024

export const tooManyClauses = () => shardFailure("too_many_clauses", `maxClauseCount is set to ${maxClauseCount}`)

/** The search ran past its deadline; its statements were cancelled (no partial results to give, see the design notes). */
export const searchTimedOut = (millis: number) =>
  shardFailure("search_timeout_exception", `Time exceeded: the search did not finish within its timeout of [${millis}ms]`, 504)

/** No search slot came free in time: ES's answer when its search thread pool queue is full. */
export const searchRejected = (reason: string) => new SearchRequestError({ esType: "es_rejected_execution_exception", reason, status: 429 })

/** The exception ES names in its answers of a status. */
const refusalTypes: Readonly<Record<number, string>> = {
  401: "security_exception",
  403: "security_exception",
  404: "resource_not_found_exception",
  405: "illegal_argument_exception",
  413: "content_too_long_exception",
  429: "es_rejected_execution_exception"
}

/**
 * A refusal of the proxy itself (a bad path, a refused index, a body too large, no credentials), in ES's shape with
 * the exception ES gives that status, so that clients that read `error.root_cause` show its reason.
 */
export const refusal = (status: number, reason: string) =>
  new SearchRequestError({ esType: refusalTypes[status] ?? (status >= 500 ? "exception" : "illegal_argument_exception"), reason, status })

/** `indices.query.bool.max_nested_depth`: how deep queries may nest in ES 7 (its default). */
export const maxNestedDepth = 20

/** A query nested deeper than maxNestedDepth, refused while parsing as ES 7 does. */
export const tooDeeplyNested = () =>
  new SearchRequestError({
    esType: "x_content_parse_exception",
    reason: "[bool] failed to parse field [must]",
    status: 400,
    causedBy: {
      type: "illegal_argument_exception",
      reason: "The nested depth of the query exceeds the maximum nested depth for bool queries set in [indices.query.bool.max_nested_depth]"
    }
  })

/** The ES error body: `{"error":{"root_cause":[…],"type","reason"},"status"}`. */
export const errorBody = (error: SearchRequestError) => {
  const cause = { type: error.esType, reason: error.reason, ...error.details }
  if (error.rootCause === undefined) {
    const causedBy = error.causedBy === undefined ? {} : { caused_by: error.causedBy }
    return { error: { root_cause: [cause], ...cause, ...causedBy }, status: error.status }
  }
  return {
    error: { root_cause: [error.rootCause], ...cause, phase: "query", grouped: true, caused_by: error.rootCause },
    status: error.status
  }
}
