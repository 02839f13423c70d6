import * as http from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DocumentIndex } from "../../../src/search/DocumentIndex.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { TestServer, testServerLayer } from "../../helpers/server.ts"
import { corpusLayer, documents, otherDocuments, send } from "./corpus.ts"
import { type ProxyRequest, randomBody, randomPath, randomProxyRequest, seeded } from "./generate.ts"

/** Bodies per database: every one answered 200, or 400 with an ES error body (never 500, never a SQL message). */
const bodies = Number(process.env.FUZZ_BODIES ?? 5_000)
/** Requests per database sent through the HTTP proxy, refusals of the proxy itself included. */
const proxyRequests = Number(process.env.FUZZ_PROXY_REQUESTS ?? 1_000)
const seed = Number(process.env.FUZZ_SEED ?? 20_240_210)

/** Elasticsearch's error shape, `{"error":{"root_cause":[…],"type","reason"},"status"}`, for an answer of `status`. */
const isEsError = (body: unknown, status: number) => {
  const error = (body as { error?: { type?: unknown; reason?: unknown; root_cause?: unknown } } | undefined)?.error
  const rootCauses = Array.isArray(error?.root_cause) ? (error.root_cause as ReadonlyArray<{ type?: unknown; reason?: unknown }>) : []
  return (
    typeof error?.type === "string" &&
    typeof error.reason === "string" &&
    rootCauses.length > 0 &&
    rootCauses.every((cause) => typeof cause.type === "string" && typeof cause.reason === "string") &&
    (body as { status?: unknown }).status === status
  )
}

/** Sends one proxy request as bytes on the wire (fetch refuses GET bodies and normalises paths). */
const sendOverHttp = (request: ProxyRequest) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; text: string }>((resume) => {
      const headers =
        request.body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(request.body)) }
      const outgoing = http.request(`${server.url}${request.path}`, { method: request.method, headers }, (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (text += chunk))
        response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(request.body)
    })
  )

const loadCorpusOverServer = Effect.flatMap(TestServer, (server) =>
  Effect.provide(
    Effect.flatMap(DocumentIndex, (index) =>
      Effect.zipRight(index.bulkIndex("corpus-a", documents), index.bulkIndex("corpus-b", otherDocuments))
    ),
    server.context
  )
).pipe(Effect.orDie)

/** Words of PostgreSQL's error messages that must never reach a client. */
const sqlLeak =
  /syntax error at|relation "|column "|operator does not exist|function .* does not exist|invalid input syntax|SQLSTATE|search_records/i

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search engine fuzz on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect(
        `${bodies} generated bodies (seed ${seed}) are each answered 200 or an ES-shaped 400`,
        () =>
          Effect.gen(function* () {
            const random = seeded(seed + (database === "postgres" ? 1 : 0))
            const failures: Array<string> = []
            const statuses = new Map<number, number>()
            for (let i = 0; i < bodies; i++) {
              const path = randomPath(random)
              const body = randomBody(random)
              const response = yield* send(path, body)
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
              const text = JSON.stringify(response.body)
              const fine = (response.status === 200 || (response.status === 400 && isEsError(response.body, 400))) && !sqlLeak.test(text)
              if (!fine && failures.length < 5) failures.push(`${path} ${JSON.stringify(body)} → ${response.status} ${text.slice(0, 300)}`)
            }
            expect(failures).toEqual([])
            // Both kinds of answers occur: the generator reaches the engine as well as its refusals.
            expect(statuses.get(200) ?? 0).toBeGreaterThan(bodies / 10)
            expect(statuses.get(400) ?? 0).toBeGreaterThan(bodies / 10)
          }),
        { timeout: 600_000 }
      )
    })
  })

  describe.skipIf(skip)(`search proxy fuzz over HTTP on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 60_000 })((it) => {
      it.effect(
        `${proxyRequests} generated requests (seed ${seed}) are each answered 2xx, or a 4xx in Elasticsearch's error shape`,
        () =>
          Effect.gen(function* () {
            yield* loadCorpusOverServer
            const random = seeded(seed + 2)
            const failures: Array<string> = []
            const statuses = new Map<number, number>()
            for (let i = 0; i < proxyRequests; i++) {
              const request = randomProxyRequest(random)
              const response = yield* sendOverHttp(request)
              statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
              // HEAD answers carry no body; every other 4xx must be ES-shaped, and nothing may be a 5xx.
              const body = request.method === "HEAD" || response.text === "" ? undefined : (JSON.parse(response.text) as unknown)
              const fine =
                response.status < 300 || (response.status < 500 && (request.method === "HEAD" || isEsError(body, response.status)))
              if ((!fine || sqlLeak.test(response.text)) && failures.length < 5) {
                failures.push(
                  `${request.method} ${request.path} ${request.body?.slice(0, 200) ?? ""} → ${response.status} ${response.text.slice(0, 300)}`
                )
              }
            }
            expect(failures).toEqual([])
            // The proxy's own refusals occur, not only the engine's.
            for (const status of [200, 400, 403, 404, 405])
              expect(statuses.get(status) ?? 0, `answers with status ${status}`).toBeGreaterThan(0)
          }),
        { timeout: 600_000 }
      )
    })
  })
}
