import * as http from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Forbidden } from "../../src/domain/RequestErrors.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { quarryClient } from "../rpc/client.ts"
import { type FakeElasticsearch, fakeElasticsearch, type RecordedRequest } from "../search/elasticsearch/fakeElasticsearch.ts"
import { type Credential, threeWays } from "./threeWays.ts"

class FakeCluster extends Context.Tag("test/hostile/FakeCluster")<FakeCluster, FakeElasticsearch>() {}

/** A SERVER-mode Quarry whose search backend is the recorded-protocol Elasticsearch fake. */
const serverOnFakeCluster = Layer.unwrapScoped(
  Effect.map(fakeElasticsearch, (fake) =>
    Layer.merge(
      testServerLayer({ database: "pglite", cli: { mode: "SERVER", elasticsearchAddress: fake.url } }),
      Layer.succeed(FakeCluster, fake)
    )
  )
)

/** A proxy request with any method and body (fetch refuses a GET with a body, which clients send). */
const proxy = (credential: Credential, method: string, path: string, body?: unknown) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; body: unknown }>((resume) => {
      const text = body === undefined ? undefined : JSON.stringify(body)
      const headers = {
        ...credential.headers,
        "content-type": "application/json",
        ...(text === undefined ? {} : { "content-length": String(Buffer.byteLength(text)) })
      }
      const outgoing = http.request(`${server.url}/api/index/search/${path}`, { method, headers }, (response) => {
        let received = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (received += chunk))
        response.on("end", () =>
          resume(Effect.succeed({ status: response.statusCode ?? 0, body: received === "" ? undefined : JSON.parse(received) }))
        )
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(text)
    })
  )

/** Requests the cluster received since `from`, the server's own pings aside. */
const receivedSince = (fake: FakeElasticsearch, from: number): ReadonlyArray<RecordedRequest> =>
  fake.requests.slice(from).filter((recorded) => !(recorded.method === "GET" && recorded.path === "/"))

const lookup = (index: string) => ({ query: { terms: { path: { index, id: "1", path: "path" } } } })

describe("The search proxy in Elasticsearch mode passes only granted indices and allow-listed endpoints (SERVER mode)", () => {
  layer(serverOnFakeCluster, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "requests without an index list, to other endpoints, or whose body names another project's index never reach the cluster, with Basic, an API key or a cookie",
      () =>
        Effect.gen(function* () {
          const fake = yield* FakeCluster
          yield* threeWays("esbob", "bob password", { projects: ["es-bob"] })
          const alice = yield* threeWays("esalice", "alice password", { projects: ["es-alice"] })
          const refusals: ReadonlyArray<readonly [string, string, unknown, number]> = [
            ["POST", "_async_search", { query: { match_all: {} } }, 400],
            ["POST", "_search", { query: { match_all: {} } }, 400],
            ["GET", "_msearch", undefined, 400],
            ["GET", "_cat/indices", undefined, 400],
            ["GET", "_all/_search", undefined, 400],
            ["POST", "es-alice/_msearch", undefined, 403],
            ["GET", "es-alice/_settings", undefined, 403],
            ["GET", "es-alice/_stats", undefined, 403],
            ["POST", "es-alice/_update/doc", { doc: { tags: ["x"] } }, 403],
            ["POST", "es-alice/_delete_by_query", { query: { match_all: {} } }, 403],
            ["POST", "es-alice/_mget", { docs: [{ _index: "es-bob", _id: "secret" }] }, 403],
            ["GET", "es-alice/_mget", { docs: [{ _index: "es-bob", _id: "secret" }] }, 403],
            ["POST", "es-alice/_search", lookup("es-bob"), 403],
            [
              "GET",
              `es-alice/_search?source=${encodeURIComponent(JSON.stringify(lookup("es-bob")))}&source_content_type=application/json`,
              undefined,
              403
            ],
            ["POST", "es-alice/_search", { query: { more_like_this: { like: [{ _index: ["es-alice", "es-bob"], _id: "1" }] } } }, 403],
            ["POST", "es-bob/_search", { query: { match_all: {} } }, 403],
            ["POST", "es-alice,es-bob/_count", undefined, 403]
          ]
          for (const credential of alice) {
            for (const [method, path, body, status] of refusals) {
              const before = fake.requests.length
              const answer = yield* proxy(credential, method, path, body)
              const label = `${credential.name} ${method} ${path}`
              expect(answer, label).toEqual({
                status,
                body: { error: expect.objectContaining({ type: expect.any(String), reason: expect.any(String) }), status }
              })
              expect(receivedSince(fake, before), label).toEqual([])
            }
            // The raw search RPC checks the indices its body names the same way.
            const rpc = yield* quarryClient("ndjson", credential.rpc)
            const beforeRpc = fake.requests.length
            expect(yield* Effect.flip(rpc.searchRaw({ projects: ["es-alice"], body: lookup("es-bob") })), credential.name).toBeInstanceOf(
              Forbidden
            )
            expect(yield* Effect.flip(rpc.searchRaw({ projects: ["es-bob"], body: {} })), credential.name).toBeInstanceOf(Forbidden)
            expect(receivedSince(fake, beforeRpc), credential.name).toEqual([])
            // Granted indices, allow-listed endpoints and bodies naming only those indices reach the cluster.
            const before = fake.requests.length
            yield* proxy(credential, "POST", "es-alice/_search", lookup("es-alice"))
            yield* proxy(credential, "POST", "es-alice/_mget", { docs: [{ _index: "es-alice", _id: "mine" }] })
            expect(receivedSince(fake, before).map((recorded) => `${recorded.method} ${recorded.path}`)).toEqual([
              "POST /es-alice/_search",
              "POST /es-alice/_mget"
            ])
          }
        })
    )

    it.scoped("a scroll or an async search continues only for a caller granted the indices of the search that opened it", () =>
      Effect.gen(function* () {
        const fake = yield* FakeCluster
        fake.indices.set("es-carol", { settings: {}, mappings: {}, records: new Map() })
        const [carol] = yield* threeWays("escarol", "carol password", { projects: ["es-carol"] })
        const dave = yield* threeWays("esdave", "dave password", { projects: ["es-dave"] })
        const scroll = yield* proxy(carol!, "POST", "es-carol/_search?scroll=1m", { query: { match_all: {} } })
        const submitted = yield* proxy(carol!, "POST", "es-carol/_async_search", { query: { match_all: {} } })
        const scrollId = (scroll.body as { _scroll_id: string })._scroll_id
        const asyncId = (submitted.body as { id: string }).id
        expect([scroll.status, submitted.status]).toEqual([200, 200])
        const continuations: ReadonlyArray<readonly [string, string, unknown]> = [
          ["POST", "_search/scroll", { scroll: "1m", scroll_id: scrollId }],
          ["GET", `_search/scroll/${scrollId}`, undefined],
          ["GET", `_async_search/${asyncId}`, undefined]
        ]
        for (const credential of dave) {
          for (const [method, path, body] of continuations) {
            const before = fake.requests.length
            const label = `${credential.name} ${method} ${path}`
            expect(yield* proxy(credential, method, path, body), label).toMatchObject({
              status: 403,
              body: { error: { reason: "You don't have access to the index 'es-carol'" }, status: 403 }
            })
            expect(receivedSince(fake, before), label).toEqual([])
          }
        }
        // An id the proxy never gave out is a missing context; the cluster is not asked.
        const before = fake.requests.length
        expect((yield* proxy(carol!, "GET", "_async_search/an-id")).status).toBe(404)
        expect((yield* proxy(carol!, "POST", "_search/scroll", { scroll_id: "an-id" })).status).toBe(404)
        expect(receivedSince(fake, before)).toEqual([])
        for (const [method, path, body] of continuations) expect((yield* proxy(carol!, method, path, body)).status, path).toBe(200)
        expect(receivedSince(fake, before).map((recorded) => `${recorded.method} ${recorded.path}`)).toEqual([
          "POST /_search/scroll",
          `GET /_search/scroll/${scrollId}`,
          `GET /_async_search/${asyncId}`
        ])
      })
    )
  })
})
