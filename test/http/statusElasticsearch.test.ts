import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, request, testServerLayer } from "../helpers/server.ts"

/**
 * No Elasticsearch can run on these machines: a loopback fake answers the cluster ping the way Elasticsearch 7
 * does (its recorded `GET /` body), or with 503 while "down".
 */
let healthy = true
const fake = http.createServer((incoming, response) => {
  if (incoming.method === "GET" && incoming.url === "/" && healthy) {
    response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
    response.end(
      JSON.stringify({
        name: "es01",
        cluster_name: "datashare",
        version: { number: "7.17.25", lucene_version: "8.11.3" },
        tagline: "You Know, for Search"
      })
    )
  } else {
    response.writeHead(503, { "content-type": "application/json; charset=UTF-8" })
    response.end(JSON.stringify({ error: { type: "master_not_discovered_exception" }, status: 503 }))
  }
})
await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve))
const address = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`

describe("GET /api/status with Elasticsearch (recorded-protocol fake on loopback)", () => {
  beforeAll(() => {
    healthy = true
  })
  afterAll(() => {
    fake.close()
  })
  layer(testServerLayer({ database: "pglite", cli: { elasticsearchAddress: address } }))((it) => {
    it.effect("reports the index up while the cluster answers its ping, and down once it does not", () =>
      Effect.gen(function* () {
        const up = yield* bodyJson(yield* request("/api/status"))
        expect(up).toMatchObject({ database: true, index: true })
        healthy = false
        // The report is a second old at most before a request refreshes it in the background: the request that
        // finds it older still answers it, a later one the refreshed report.
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_100)))
        const stale = yield* bodyJson(yield* request("/api/status"))
        expect(stale).toMatchObject({ database: true, index: true })
        let down = stale
        for (let attempt = 0; attempt < 40 && (down as { index?: boolean }).index !== false; attempt++) {
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
          down = yield* bodyJson(yield* request("/api/status"))
        }
        expect(down).toMatchObject({ database: true, index: false })
      })
    )
  })
})
