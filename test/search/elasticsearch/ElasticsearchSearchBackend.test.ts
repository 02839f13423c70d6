import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DocumentIndex, type IndexedDocument } from "../../../src/search/DocumentIndex.ts"
import { elasticsearchLayers } from "../../../src/search/elasticsearch/Layer.ts"
import { type BackendRequest, SearchBackend } from "../../../src/search/SearchBackend.ts"
import { type FakeElasticsearch, fakeElasticsearch } from "./fakeElasticsearch.ts"

const document: IndexedDocument = {
  id: "a".repeat(96),
  path: "/data/a.txt",
  dirname: "/data",
  content: "offshore company",
  contentLength: 17,
  contentTextLength: 16,
  contentType: "text/plain",
  contentEncoding: "UTF-8",
  language: "ENGLISH",
  metadata: {},
  extractionDate: "2026-11-24T01:00:00.000Z",
  extractionLevel: 0,
  parentDocument: null,
  rootDocument: "a".repeat(96),
  tags: ["Urgent"],
  nerTags: [],
  status: "INDEXED"
}

/** The fake cluster with one indexed document, and the backend forwarding to `address` (the fake by default). */
const withBackend = <A, E>(
  use: (backend: typeof SearchBackend.Service, fake: FakeElasticsearch) => Effect.Effect<A, E>,
  address?: string
) =>
  Effect.gen(function* () {
    const fake = yield* fakeElasticsearch
    const layer = elasticsearchLayers(address ?? fake.url, { requestTimeout: 1_000, maxRetries: 0 })
    return yield* Effect.gen(function* () {
      const index = yield* DocumentIndex
      yield* index.createIndex("local-datashare")
      yield* index.bulkIndex("local-datashare", [document])
      fake.requests.length = 0
      return yield* use(yield* SearchBackend, fake)
    }).pipe(Effect.provide(layer))
  })

const backendRequest = (method: BackendRequest["method"], path: string, body?: unknown, query = ""): BackendRequest => ({
  method,
  path,
  query: new URLSearchParams(query),
  body
})

const esError = (status: number, type: string) => ({
  status,
  error: expect.objectContaining({ type, root_cause: [expect.objectContaining({ type })] })
})

describe("ElasticsearchSearchBackend (recorded-protocol fake on loopback)", () => {
  it.scoped("forwards a search's method, path, query and body unchanged and answers the cluster's status and body", () =>
    withBackend((backend, fake) =>
      Effect.gen(function* () {
        const body = { query: { query_string: { query: "offshore" } }, size: 25, _source: { includes: ["path"] } }
        const response = yield* backend.handle(backendRequest("POST", "local-datashare/_search", body, "routing=r1&preference=_local"))
        expect(fake.requests).toHaveLength(1)
        const sent = fake.requests[0]!
        expect(sent.method).toBe("POST")
        expect(sent.path).toBe("/local-datashare/_search")
        expect(Object.fromEntries(sent.query)).toEqual({ routing: "r1", preference: "_local" })
        expect(JSON.parse(sent.body)).toEqual(body)
        expect(sent.headers["content-type"]).toBe("application/json")
        expect(response.status).toBe(200)
        expect(response.body).toMatchObject({
          timed_out: false,
          hits: {
            total: { value: 1, relation: "eq" },
            hits: [{ _index: "local-datashare", _id: document.id, _source: { type: "Document", tags: ["Urgent"] } }]
          }
        })
      })
    )
  )

  it.scoped("keeps index lists and ids in the path, and a GET's body goes as the source parameter", () =>
    withBackend((backend, fake) =>
      Effect.gen(function* () {
        const count = yield* backend.handle(backendRequest("POST", "local-datashare,local-datashare/_count"))
        expect(fake.requests[0]!.path).toBe("/local-datashare,local-datashare/_count")
        expect(count).toEqual({ status: 200, body: { count: 1, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } } })

        const get = yield* backend.handle(backendRequest("GET", `local-datashare/_doc/${document.id}`, undefined, `routing=${document.id}`))
        expect(fake.requests[1]!.query.get("routing")).toBe(document.id)
        expect(get).toMatchObject({ status: 200, body: { _id: document.id, found: true, _source: { path: "/data/a.txt" } } })

        const query = { query: { match_all: {} } }
        yield* backend.handle(backendRequest("GET", "local-datashare/_search", query, "size=3"))
        const sent = fake.requests[2]!
        expect(sent.body).toBe("")
        expect(JSON.parse(sent.query.get("source")!)).toEqual(query)
        expect(sent.query.get("source_content_type")).toBe("application/json")
      })
    )
  )

  it.scoped("propagates the cluster's error statuses and bodies", () =>
    withBackend((backend) =>
      Effect.gen(function* () {
        const missing = yield* backend.handle(backendRequest("POST", "unknown-index/_search", { query: { match_all: {} } }))
        expect(missing.status).toBe(404)
        expect(missing.body).toMatchObject(esError(404, "index_not_found_exception"))
        expect(missing.body).toMatchObject({ error: { reason: "no such index [unknown-index]" } })

        const malformed = yield* backend.handle(backendRequest("POST", "local-datashare/_search", { quer: { match_all: {} } }))
        expect(malformed.status).toBe(400)
        expect(malformed.body).toMatchObject(esError(400, "parsing_exception"))

        const absent = yield* backend.handle(backendRequest("GET", `local-datashare/_doc/${"f".repeat(96)}`))
        expect(absent).toEqual({ status: 404, body: { _index: "local-datashare", _type: "_doc", _id: "f".repeat(96), found: false } })
      })
    )
  )

  it.scoped("HEAD answers the cluster's status alone", () =>
    withBackend((backend, fake) =>
      Effect.gen(function* () {
        expect(yield* backend.handle(backendRequest("HEAD", "local-datashare"))).toEqual({ status: 200, body: undefined })
        expect(yield* backend.handle(backendRequest("HEAD", "unknown-index"))).toEqual({ status: 404, body: undefined })
        expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
          "HEAD /local-datashare",
          "HEAD /unknown-index"
        ])
      })
    )
  )

  it.scoped("a cluster that does not answer in time gets a 504 with an Elasticsearch-shaped body", () =>
    withBackend((backend, fake) =>
      Effect.gen(function* () {
        fake.hang = true
        const response = yield* backend.handle(backendRequest("POST", "local-datashare/_search", {}))
        expect(response.status).toBe(504)
        expect(response.body).toMatchObject(esError(504, "timeout_exception"))
        // Not retried: the client that asked decides.
        expect(fake.requests).toHaveLength(1)
      })
    )
  )

  it.scoped("an unreachable cluster gets a 502 with an Elasticsearch-shaped body", () =>
    Effect.gen(function* () {
      const backend = yield* Effect.provide(
        SearchBackend,
        elasticsearchLayers("http://127.0.0.1:9", { requestTimeout: 1_000, maxRetries: 0 })
      )
      const response = yield* backend.handle(backendRequest("POST", "local-datashare/_search", {}))
      expect(response.status).toBe(502)
      expect(response.body).toMatchObject(esError(502, "connect_transport_exception"))
      expect(response.body).toMatchObject({ error: { reason: expect.stringMatching(/^Elasticsearch is unreachable/) } })
    })
  )
})
