import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { type Answer, bulk, type Clause, docView, errorBody, type FakeIndex, matches, search, updateByQuery } from "./fakeRecords.ts"

/**
 * No Elasticsearch can run on these machines: this loopback server answers the part of the Elasticsearch 7.17 REST
 * protocol Quarry uses, with the status codes, headers and body shapes a real cluster gives (recorded from one):
 * the product header, index creation and existence, `_bulk` NDJSON with per-item results (409 for a create of an
 * existing id; partial `update`s), `_update_by_query` with simple assignment scripts, realtime gets and `_mget` with routing, `_count`, `_search` (a `content` highlight included), and the error bodies of a missing index,
 * an unparsable query, an existing index, missing credentials and a media type versioned for Elasticsearch 8
 * (406). It records every request it receives.
 */

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface FakeElasticsearch {
  url: string
  readonly requests: Array<RecordedRequest>
  readonly indices: Map<string, FakeIndex>
  /** While true, requests are received but never answered (a cluster that hangs). */
  hang: boolean
  /** Ids whose create the cluster refuses with this item status (400 mapping error, 429 overloaded). */
  readonly refuse: Map<string, number>
  /** `user:password` the cluster requires as Basic credentials, when set. */
  credentials: string | undefined
  /** Answers kept under the ids the cluster gave out: scrolls (their first page) and async searches. */
  readonly continuations: Map<string, Record<string, unknown>>
}

const indexNotFound = (index: string) =>
  errorBody(404, "index_not_found_exception", `no such index [${index}]`, {
    "resource.type": "index_or_alias",
    "resource.id": index,
    index_uuid: "_na_",
    index
  })

const answer = (fake: FakeElasticsearch, request: RecordedRequest): Answer => {
  const [first = "", second, third] = request.path
    .split("/")
    .filter((part) => part !== "")
    .map(decodeURIComponent)
  const json = (): Record<string, unknown> => (request.body === "" ? {} : (JSON.parse(request.body) as Record<string, unknown>))
  if (request.method === "GET" && first === "") {
    return {
      status: 200,
      body: { name: "es01", cluster_name: "datashare", version: { number: "7.17.25" }, tagline: "You Know, for Search" }
    }
  }
  if (first === "_search" && second === "scroll") {
    const scrollId = (json()["scroll_id"] as string | undefined) ?? request.query.get("scroll_id") ?? third ?? ""
    if (!fake.continuations.has(scrollId)) {
      return { status: 404, body: errorBody(404, "search_context_missing_exception", `No search context found for id [${scrollId}]`) }
    }
    // Every page after the first is empty: the fake's searches fit in one page.
    const page = { value: 0, relation: "eq" }
    return { status: 200, body: { _scroll_id: scrollId, took: 1, timed_out: false, hits: { total: page, max_score: null, hits: [] } } }
  }
  if (first === "_async_search" && second !== undefined && request.method === "GET") {
    const kept = fake.continuations.get(second)
    return kept === undefined ? { status: 404, body: errorBody(404, "resource_not_found_exception", second) } : { status: 200, body: kept }
  }
  if (first === "_bulk" || second === "_bulk") return bulk(fake, request.body, second === "_bulk" ? first : undefined)
  const index = fake.indices.get(first)
  // A comma-separated list of indices searches all of them (each once); one missing index is a 404.
  const names = [...new Set(first.split(","))]
  const missing = names.find((name) => !fake.indices.has(name))
  const listed =
    missing === undefined
      ? names.flatMap((name) => [...fake.indices.get(name)!.records.entries()].map(([id, record]) => ({ name, id, record })))
      : []
  if (second === undefined && request.method === "PUT") {
    if (index !== undefined) {
      return {
        status: 400,
        body: errorBody(400, "resource_already_exists_exception", `index [${first}/kZtx0yrTQeqbGWp2Tg8xRA] already exists`, {
          index: first
        })
      }
    }
    const { settings, mappings } = json()
    fake.indices.set(first, { settings, mappings, records: new Map() })
    return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: first } }
  }
  if (second === undefined && request.method === "HEAD") return { status: index === undefined ? 404 : 200 }
  if (missing !== undefined) return { status: 404, body: indexNotFound(missing) }
  if (second === "_doc" && third !== undefined && request.method === "GET") {
    const view = docView(first, third, index?.records.get(third), request.query.get("_source_includes"))
    return { status: view.found ? 200 : 404, body: view }
  }
  if (second === "_mget") {
    const ids = (json()["ids"] as ReadonlyArray<string>) ?? []
    return {
      status: 200,
      body: { docs: ids.map((id) => docView(first, id, index?.records.get(id), request.query.get("_source_includes"))) }
    }
  }
  if (second === "_update_by_query" && index !== undefined) return updateByQuery(index, json())
  if (second === "_count") {
    const query = json()["query"] as Clause | undefined
    const count = listed.filter(({ id, record }) => matches(id, record.source, query)).length
    return { status: 200, body: { count, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } } }
  }
  if (second === "_async_search" && request.method === "POST") {
    const searched = search(listed, json())
    if (searched.status !== 200) return searched
    const id = `async-${fake.continuations.size + 1}`
    const now = Date.now()
    const kept = {
      id,
      is_partial: false,
      is_running: false,
      start_time_in_millis: now,
      expiration_time_in_millis: now + 5 * 86_400_000,
      completion_time_in_millis: now,
      response: searched.body
    }
    fake.continuations.set(id, kept)
    return { status: 200, body: kept }
  }
  if (second === "_search") {
    const searched = search(listed, json())
    if (searched.status !== 200 || request.query.get("scroll") === null) return searched
    const scrollId = `scroll-${fake.continuations.size + 1}`
    const page = { _scroll_id: scrollId, ...(searched.body as Record<string, unknown>) }
    fake.continuations.set(scrollId, page)
    return { status: 200, body: page }
  }
  return { status: 400, body: { error: `no handler found for uri [${request.path}] and method [${request.method}]` } }
}

const unauthenticated = (path: string) =>
  errorBody(401, "security_exception", `missing authentication credentials for REST request [${path}]`, {
    header: { "WWW-Authenticate": 'Basic realm="security" charset="UTF-8"' }
  })

/** Starts a fake cluster on a loopback port; it closes with the scope. */
export const fakeElasticsearch = Effect.acquireRelease(
  Effect.async<{ fake: FakeElasticsearch; server: http.Server }>((resume) => {
    const fake: FakeElasticsearch = {
      url: "",
      requests: [],
      indices: new Map(),
      hang: false,
      refuse: new Map(),
      credentials: undefined,
      continuations: new Map()
    }
    const server = http.createServer((incoming, response) => {
      const chunks: Array<Buffer> = []
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("end", () => {
        const url = new URL(incoming.url ?? "/", "http://localhost")
        const request = {
          method: incoming.method ?? "GET",
          path: url.pathname,
          query: url.searchParams,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString("utf8")
        }
        fake.requests.push(request)
        if (fake.hang) return
        const expected = fake.credentials === undefined ? undefined : `Basic ${Buffer.from(fake.credentials).toString("base64")}`
        const contentType = incoming.headers["content-type"] ?? ""
        const { status, body } =
          expected !== undefined && incoming.headers.authorization !== expected
            ? { status: 401, body: unauthenticated(url.pathname) }
            : contentType.includes("compatible-with=8")
              ? // Elasticsearch 7 refuses the media types versioned for 8.
                { status: 406, body: { error: `Content-Type header [${contentType}] is not supported`, status: 406 } }
              : answer(fake, request)
        response.writeHead(status, { "X-Elastic-Product": "Elasticsearch", "content-type": "application/json; charset=UTF-8" })
        response.end(body === undefined || request.method === "HEAD" ? undefined : JSON.stringify(body))
      })
    })
    server.listen(0, "127.0.0.1", () => {
      fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resume(Effect.succeed({ fake, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ fake }) => fake))
