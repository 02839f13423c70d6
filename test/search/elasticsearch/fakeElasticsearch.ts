import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

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

export interface StoredRecord {
  readonly source: Record<string, unknown>
  readonly routing: string | undefined
  readonly version: number
}

export interface FakeIndex {
  readonly settings: unknown
  readonly mappings: unknown
  readonly records: Map<string, StoredRecord>
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

const errorBody = (status: number, type: string, reason: string, extra: Record<string, unknown> = {}) => ({
  error: { root_cause: [{ type, reason, ...extra }], type, reason, ...extra },
  status
})

const indexNotFound = (index: string) =>
  errorBody(404, "index_not_found_exception", `no such index [${index}]`, {
    "resource.type": "index_or_alias",
    "resource.id": index,
    index_uuid: "_na_",
    index
  })

const searchKeys = new Set(["query", "size", "from", "aggs", "aggregations", "sort", "_source", "highlight", "track_total_hits"])

interface Answer {
  readonly status: number
  readonly body?: unknown
}

const bulkItem = (
  fake: FakeElasticsearch,
  action: string,
  meta: Record<string, unknown>,
  source: Record<string, unknown>,
  defaultIndex: string | undefined
) => {
  const index = String(meta["_index"] ?? defaultIndex)
  const id = String(meta["_id"])
  const routing = typeof meta["routing"] === "string" ? meta["routing"] : undefined
  const target = fake.indices.get(index) ?? { settings: {}, mappings: {}, records: new Map() }
  fake.indices.set(index, target)
  const refused = fake.refuse.get(id)
  if (refused !== undefined) {
    const type = refused === 429 ? "es_rejected_execution_exception" : "mapper_parsing_exception"
    return { [action]: { _index: index, _type: "_doc", _id: id, status: refused, error: { type, reason: `refused [${id}]` } } }
  }
  const existing = target.records.get(id)
  if (action === "update") return updateItem(target, index, id, existing, source)
  if (action === "create" && existing !== undefined) {
    const reason = `[${id}]: version conflict, document already exists (current version [${existing.version}])`
    return {
      create: {
        _index: index,
        _type: "_doc",
        _id: id,
        status: 409,
        error: { type: "version_conflict_engine_exception", reason, index_uuid: "kZtx0yrTQeqbGWp2Tg8xRA", shard: "0", index }
      }
    }
  }
  const version = (existing?.version ?? 0) + 1
  target.records.set(id, { source, routing, version })
  const result = existing === undefined ? "created" : "updated"
  return {
    [action]: {
      _index: index,
      _type: "_doc",
      _id: id,
      _version: version,
      result,
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: target.records.size - 1,
      _primary_term: 1,
      status: existing === undefined ? 201 : 200
    }
  }
}

/** A bulk `update` with a partial `doc`: merged into the stored source; 404 when the record is absent. */
const updateItem = (target: FakeIndex, index: string, id: string, existing: StoredRecord | undefined, body: Record<string, unknown>) => {
  if (existing === undefined) {
    const reason = `[_doc][${id}]: document missing`
    return { update: { _index: index, _type: "_doc", _id: id, status: 404, error: { type: "document_missing_exception", reason, index } } }
  }
  const version = existing.version + 1
  target.records.set(id, { ...existing, source: { ...existing.source, ...(body["doc"] as Record<string, unknown>) }, version })
  return { update: { _index: index, _type: "_doc", _id: id, _version: version, result: "updated", status: 200 } }
}

type Clause = Record<string, unknown>

/**
 * Whether a record matches the query clauses Quarry's own writes use: `term` (on a value or an array), `ids` and
 * `bool` (filter, must, must_not). Other clauses (query_string and the like) match everything, as the fake does
 * not rank text.
 */
const matches = (id: string, source: Record<string, unknown>, query: Clause | undefined): boolean => {
  if (query === undefined) return true
  if (query["term"] !== undefined) {
    const [field, expected] = Object.entries(query["term"] as Clause)[0]!
    const value = typeof expected === "object" && expected !== null ? (expected as Clause)["value"] : expected
    const stored = source[field]
    return Array.isArray(stored) ? stored.includes(value) : stored === value
  }
  if (query["ids"] !== undefined) return (query["ids"] as { values: ReadonlyArray<string> }).values.includes(id)
  if (query["bool"] !== undefined) {
    const bool = query["bool"] as Record<string, Clause | ReadonlyArray<Clause> | undefined>
    const list = (name: string) => [bool[name] ?? []].flat()
    return (
      [...list("filter"), ...list("must")].every((clause) => matches(id, source, clause)) &&
      !list("must_not").some((clause) => matches(id, source, clause))
    )
  }
  return true
}

/** `_update_by_query` with a script of the form `ctx._source.<field> = true|false`. */
const updateByQuery = (index: FakeIndex, body: Record<string, unknown>): Answer => {
  const script = String((body["script"] as { source?: string } | undefined)?.source ?? "")
  const assignment = /^ctx\._source\.(\w+) = (true|false)$/.exec(script)
  if (assignment === null) return { status: 400, body: errorBody(400, "script_exception", `compile error [${script}]`) }
  let updated = 0
  for (const [id, record] of index.records) {
    if (!matches(id, record.source, body["query"] as Clause | undefined)) continue
    index.records.set(id, {
      ...record,
      source: { ...record.source, [assignment[1]!]: assignment[2] === "true" },
      version: record.version + 1
    })
    updated += 1
  }
  return {
    status: 200,
    body: {
      took: 4,
      timed_out: false,
      total: updated,
      updated,
      deleted: 0,
      batches: updated === 0 ? 0 : 1,
      version_conflicts: 0,
      noops: 0,
      failures: []
    }
  }
}

const bulk = (fake: FakeElasticsearch, body: string, defaultIndex: string | undefined): Answer => {
  const lines = body.split("\n").filter((line) => line.trim() !== "")
  const items: Array<unknown> = []
  for (let i = 0; i < lines.length; i += 2) {
    const action = JSON.parse(lines[i]!) as Record<string, Record<string, unknown>>
    const [name, meta] = Object.entries(action)[0]!
    items.push(bulkItem(fake, name, meta, JSON.parse(lines[i + 1]!) as Record<string, unknown>, defaultIndex))
  }
  const errors = items.some((item) => Object.values(item as Record<string, { status: number }>)[0]!.status >= 300)
  return { status: 200, body: { took: 3, errors, items } }
}

const docView = (index: string, id: string, record: StoredRecord | undefined, includes: string | null) => {
  if (record === undefined) return { _index: index, _type: "_doc", _id: id, found: false }
  const source =
    includes === null
      ? record.source
      : Object.fromEntries(Object.entries(record.source).filter(([key]) => includes.split(",").includes(key)))
  return {
    _index: index,
    _type: "_doc",
    _id: id,
    _version: record.version,
    _seq_no: 0,
    _primary_term: 1,
    ...(record.routing === undefined ? {} : { _routing: record.routing }),
    found: true,
    _source: source
  }
}

/** The words of the request's `query_string` clauses, wherever they are nested. */
const queryStringWords = (clause: unknown): ReadonlyArray<string> => {
  if (typeof clause !== "object" || clause === null) return []
  const queryString = (clause as Clause)["query_string"] as { query?: unknown } | undefined
  const own = typeof queryString?.query === "string" ? (queryString.query.match(/[\p{L}\p{N}]+/gu) ?? []) : []
  return [...own, ...Object.values(clause).flatMap(queryStringWords)]
}

/**
 * A highlight of `content` as the cluster gives it when the request asks for one: the text's first
 * `fragment_size` characters (the fake does not pick passages) with the query's words in `<em>` tags; no entry when
 * the content is missing.
 */
const contentHighlight = (source: Record<string, unknown>, body: Record<string, unknown>) => {
  const field = ((body["highlight"] as { fields?: Record<string, { fragment_size?: number }> } | undefined)?.fields ?? {})["content"]
  const content = source["content"]
  if (field === undefined || typeof content !== "string") return {}
  const words = new Set(queryStringWords(body["query"]).map((word) => word.toLowerCase()))
  const fragment = content
    .slice(0, field.fragment_size ?? 100)
    .replace(/[\p{L}\p{N}]+/gu, (word) => (words.has(word.toLowerCase()) ? `<em>${word}</em>` : word))
  return { highlight: { content: [fragment] } }
}

const isDocument = (record: StoredRecord) => record.source["type"] === "Document"

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

/** A search over the records of the listed indices. */
const search = (
  listed: ReadonlyArray<{ readonly name: string; readonly id: string; readonly record: StoredRecord }>,
  body: Record<string, unknown>
): Answer => {
  const unknown = Object.keys(body).find((key) => !searchKeys.has(key))
  if (unknown !== undefined) {
    const reason = `Unknown key for a START_OBJECT in [${unknown}].`
    return { status: 400, body: errorBody(400, "parsing_exception", reason, { line: 1, col: 2 + unknown.length + 3 }) }
  }
  const query = body["query"] as Clause | undefined
  const size = typeof body["size"] === "number" ? body["size"] : 10_000
  const hits = listed
    .filter(({ id, record }) => isDocument(record) && matches(id, record.source, query))
    .slice(0, size)
    .map(({ name, id, record }) => ({
      _index: name,
      _type: "_doc",
      _id: id,
      _score: 1,
      ...(record.routing === undefined ? {} : { _routing: record.routing }),
      _source: record.source,
      ...contentHighlight(record.source, body)
    }))
  return {
    status: 200,
    body: {
      took: 2,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: { total: { value: hits.length, relation: "eq" }, max_score: hits.length === 0 ? null : 1, hits }
    }
  }
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
