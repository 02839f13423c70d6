import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { BadRequest, Forbidden } from "../domain/RequestErrors.ts"

/** The projects searched; each must be one of the caller's in SERVER mode, as on the search proxy. */
const Projects = Schema.NonEmptyArray(Schema.String.pipe(Schema.pattern(/^[-a-zA-Z0-9_]+$/)))

/** A document found by a typed search (`content` is left out: read it with `getContent`). */
export const SearchHit = Schema.Struct({
  project: Schema.String,
  id: Schema.String,
  rootId: Schema.String,
  path: Schema.String,
  contentType: Schema.NullOr(Schema.String),
  contentLength: Schema.NullOr(Schema.Number),
  creationDate: Schema.NullOr(Schema.Date)
}).annotations({ identifier: "SearchHit" })
export type SearchHit = typeof SearchHit.Type

/** The backend refused a typed search (a query_string it cannot parse, an unknown project): its status and reason. */
export class SearchFailed extends Schema.TaggedError<SearchFailed>()("SearchFailed", { status: Schema.Number, reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

const SearchError = Schema.Union(BadRequest, Forbidden)
const TypedSearchError = Schema.Union(BadRequest, Forbidden, SearchFailed)

/** Searching documents: Elasticsearch requests as the search proxy answers them, and typed query_string searches. */
export class SearchRpcs extends RpcGroup.make(
  /**
   * An Elasticsearch request body on `_search` (the default) or `_count` of the projects, answered as the search proxy answers
   * it: the backend's status and JSON body (Elasticsearch errors included), whichever backend serves the index.
   */
  Rpc.make("searchRaw", {
    payload: {
      projects: Projects,
      endpoint: Schema.optional(Schema.Literal("_search", "_count")),
      body: Schema.Unknown
    },
    success: Schema.Struct({ status: Schema.Number, body: Schema.Unknown }),
    error: SearchError
  }),
  /** One page of the documents matching a query_string query (the syntax of the search proxy), with the total; `from` 0 and `size` 10 by default. */
  Rpc.make("searchDocuments", {
    payload: {
      query: Schema.String,
      projects: Projects,
      from: Schema.optional(Schema.Int.pipe(Schema.between(0, 10_000))),
      size: Schema.optional(Schema.Int.pipe(Schema.between(0, 1_000)))
    },
    success: Schema.Struct({ total: Schema.Number, hits: Schema.Array(SearchHit) }),
    error: TypedSearchError
  }),
  /** Every document matching a query_string query, page after page, up to the result window (10 000); pages of 100 by default. */
  Rpc.make("streamDocuments", {
    payload: { query: Schema.String, projects: Projects, pageSize: Schema.optional(Schema.Int.pipe(Schema.between(1, 1_000))) },
    success: SearchHit,
    error: TypedSearchError,
    stream: true
  })
) {}
