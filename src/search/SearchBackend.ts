import { Context, type Effect } from "effect"

/** from + size beyond this is refused, as by Elasticsearch's default index.max_result_window. */
export const maxResultWindow = 10_000

/**
 * One request to the search backend, as the index proxy received it after its access checks: the path after
 * `/api/index/search/` (e.g. `local-datashare/_search`, `a,b/_count`, `idx/_doc/<id>`), the query parameters,
 * and the body already parsed from JSON (undefined when the request had none).
 */
export interface BackendRequest {
  readonly method: "GET" | "POST" | "HEAD"
  readonly path: string
  readonly query: URLSearchParams
  readonly body: unknown
  /**
   * Someone is waiting for this answer (the search proxy): when every search slot is taken it waits briefly in a
   * bounded queue and is otherwise answered 429. Other requests (batch searches) wait for a slot.
   */
  readonly interactive?: boolean
}

/** The backend's answer: its status and its JSON body, as Elasticsearch would give them (errors included). */
export interface BackendResponse {
  readonly status: number
  readonly body: unknown
}

/**
 * Answers Elasticsearch requests: the PostgreSQL engine interprets them over the document tables, the
 * Elasticsearch backend forwards them unchanged. Backend errors are answers (status + ES error body), never
 * failures, so the proxy can propagate them as they are.
 */
export interface SearchBackendShape {
  readonly handle: (request: BackendRequest) => Effect.Effect<BackendResponse>
}

export class SearchBackend extends Context.Tag("quarry/SearchBackend")<SearchBackend, SearchBackendShape>() {}
