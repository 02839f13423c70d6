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
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
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
export const illegalArgument = (reason: string) =>
  new SearchRequestError({ esType: "illegal_argument_exception", reason, status: 400 })

/** A body that is not valid JSON or does not have the shape of an ES request. */
export const parsingError = (reason: string) => new SearchRequestError({ esType: "parsing_exception", reason, status: 400 })

export const indexNotFound = (index: string) =>
  new SearchRequestError({
    esType: "index_not_found_exception",
    reason: `no such index [${index}]`,
    status: 404,
    details: { index, "resource.type": "index_or_alias", "resource.id": index }
  })

/** The ES error body: `{"error":{"root_cause":[…],"type","reason"},"status"}`. */
export const errorBody = (error: SearchRequestError) => {
  const cause = { type: error.esType, reason: error.reason, ...error.details }
  return { error: { root_cause: [cause], ...cause }, status: error.status }
}
