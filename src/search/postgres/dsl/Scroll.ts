import { randomBytes } from "node:crypto"
import type { SqlError, Statement } from "@effect/sql"
import { Effect } from "effect"
import { illegalArgument, parsingError, SearchRequestError } from "./Errors.ts"
import { parseSearchRequest } from "./ParseRequest.ts"
import { runSearch } from "./Search.ts"

/**
 * Scrolling, as ES 7 does it: `<index>/_search?scroll=1m` answers the first page with a
 * `_scroll_id`, and `_search/scroll` with that id answers the next pages until one is empty. The context is a row
 * holding the search and the offset of its next page; each page runs the search again at that offset, so a
 * scroll is not a snapshot: documents indexed meanwhile can shift the pages that follow. Aggregations come with
 * the first page only, as in Elasticsearch.
 */

type Sql = Statement.Constructor

/** Elasticsearch's default `search.max_keep_alive`. */
const maxKeepAliveMillis = 24 * 3_600_000

const unitMillis: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 }

/** A keep-alive in Elasticsearch's time units ("1m", "30s", "500ms"), in milliseconds. */
export const keepAliveMillis = (value: string) =>
  Effect.gen(function* () {
    const match = /^(\d+)(d|h|m|s|ms)$/.exec(value.trim())
    if (match === null) return yield* parsingError(`failed to parse setting [scroll] with value [${value}] as a time value`)
    const millis = Number(match[1]) * unitMillis[match[2]!]!
    if (millis > maxKeepAliveMillis) {
      return yield* illegalArgument(
        `Keep alive for request (${value}) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.`
      )
    }
    return millis
  })

const expiry = (millis: number) => new Date(Date.now() + millis)

/** The first page of a scroll: the search as usual, plus the id that continues it. */
export const openScroll = (sql: Sql, indices: ReadonlyArray<string>, body: unknown, query: URLSearchParams, keepAlive: string) =>
  Effect.gen(function* () {
    const millis = yield* keepAliveMillis(keepAlive)
    const request = yield* parseSearchRequest(body, query)
    if (request.from > 0) return yield* illegalArgument("Using [from] is not allowed in a scroll context")
    const response = yield* runSearch(sql, indices, request)
    const id = randomBytes(24).toString("base64url")
    const urlQuery = new URLSearchParams(query)
    urlQuery.delete("scroll")
    yield* sql`DELETE FROM search_scrolls WHERE expires_at < now()`
    yield* sql`INSERT INTO search_scrolls ${sql.insert({
      id,
      indices: indices.join(","),
      body: JSON.stringify(body ?? {}),
      url_query: urlQuery.toString(),
      page_size: request.size,
      next_from: request.size,
      expires_at: expiry(millis)
    })}`
    return { _scroll_id: id, ...response }
  })

interface ScrollRow {
  readonly indices: string
  readonly body: string
  readonly urlQuery: string
  readonly from: number
}

const missingContext = (id: string) =>
  new SearchRequestError({ esType: "search_context_missing_exception", reason: `No search context found for id [${id}]`, status: 404 })

/**
 * The next page of a scroll. Claiming the page and moving the offset is one statement, so two callers continuing
 * the same scroll at once get different pages. Without a keep-alive the context keeps its expiry.
 */
export const continueScroll = (
  sql: Sql,
  id: string,
  keepAlive: string | undefined
): Effect.Effect<Record<string, unknown>, SearchRequestError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const millis = keepAlive === undefined ? undefined : yield* keepAliveMillis(keepAlive)
    const rows = yield* sql<ScrollRow>`
      UPDATE search_scrolls SET next_from = next_from + page_size,
        expires_at = ${millis === undefined ? sql`expires_at` : sql`${expiry(millis)}`}
      WHERE id = ${id} AND expires_at >= now()
      RETURNING indices, body, url_query AS "urlQuery", next_from - page_size AS "from"`
    const row = rows[0]
    if (row === undefined) return yield* missingContext(id)
    const request = yield* parseSearchRequest(JSON.parse(row.body), new URLSearchParams(row.urlQuery))
    const response = yield* runSearch(sql, row.indices.split(","), { ...request, from: row.from, aggregations: [] })
    return { _scroll_id: id, ...response }
  })
