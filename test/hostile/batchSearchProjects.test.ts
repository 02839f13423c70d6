import { describe, expect, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { BatchSearchForbidden } from "../../src/domain/batch-search/BatchSearchErrors.ts"
import { quarryClient } from "../rpc/client.ts"
import { bodyJson, bodyText, request, testServerLayer } from "../helpers/server.ts"
import { type Credential, threeWays } from "./threeWays.ts"

/** Creates a published batch search on `projects` as `owner`; answers its uuid. */
const createPublished = (owner: Credential, projects: string) =>
  Effect.gen(function* () {
    const form = new FormData()
    form.append("name", "shared search")
    form.append("published", "true")
    form.append("csvFile", new Blob(["offshore\nbank\n"], { type: "text/csv" }), "queries.csv")
    const response = yield* request(`/api/batch/search/${projects}`, { method: "POST", body: form, headers: owner.headers })
    expect(response.status).toBe(200)
    return yield* bodyText(response)
  })

const call = (credential: Credential, method: string, path: string, body?: unknown) =>
  Effect.flatMap(
    request(path, {
      method,
      headers: { ...credential.headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }),
    (response) => Effect.map(bodyText(response), (text) => ({ status: response.status, text }))
  )

const uuidsOf = (body: unknown) =>
  (Array.isArray(body) ? body : (body as { items: ReadonlyArray<unknown> }).items).map((item) => (item as { uuid: string }).uuid)

describe("Published batch searches across projects (SERVER mode)", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "a user without access to all of its projects gets 403 on every endpoint and does not see it listed, with Basic, an API key or a cookie",
      () =>
        Effect.gen(function* () {
          const [owner] = yield* threeWays("bsowner", "owner password", { projects: ["bs-open", "bs-secret"] })
          const [colleague] = yield* threeWays("bscolleague", "colleague password", { projects: ["bs-open", "bs-secret"] })
          const outsider = yield* threeWays("bsoutsider", "outsider password", { projects: ["bs-open"] })
          const uuid = yield* createPublished(owner!, "bs-open,bs-secret")

          for (const credential of outsider) {
            const listed = yield* Effect.flatMap(request("/api/batch/search", { headers: credential.headers }), bodyJson)
            expect(uuidsOf(listed), credential.name).not.toContain(uuid)
            const filtered = yield* call(credential, "POST", "/api/batch/search", { project: ["bs-open"] })
            expect(uuidsOf(JSON.parse(filtered.text)), credential.name).not.toContain(uuid)
            const refusals: ReadonlyArray<readonly [string, string, unknown?]> = [
              ["GET", `/api/batch/search/${uuid}?withQueries=true`],
              ["GET", `/api/batch/search/${uuid}/queries`],
              ["GET", `/api/batch/search/${uuid}/queries?format=csv`],
              ["POST", `/api/batch/search/result/${uuid}`, {}],
              ["GET", `/api/batch/search/result/csv/${uuid}`],
              ["POST", `/api/batch/search/copy/${uuid}`, { name: "stolen" }],
              ["PATCH", `/api/batch/search/${uuid}`, { data: { published: false } }],
              ["DELETE", `/api/batch/search/${uuid}`]
            ]
            for (const [method, path, body] of refusals) {
              const answer = yield* call(credential, method, path, body)
              expect({ status: answer.status, body: JSON.parse(answer.text) }, `${credential.name} ${method} ${path}`).toEqual({
                status: 403,
                body: { error: "you do not have access to every project of this batch search" }
              })
            }
          }

          // Untouched by the refused calls, and readable by a user of both projects.
          const listed = yield* Effect.flatMap(request("/api/batch/search", { headers: colleague!.headers }), bodyJson)
          expect(uuidsOf(listed)).toContain(uuid)
          const read = yield* call(colleague!, "GET", `/api/batch/search/${uuid}`)
          expect(read.status).toBe(200)
          expect(JSON.parse(read.text)).toMatchObject({ uuid, published: true })
          expect((yield* call(colleague!, "GET", `/api/batch/search/result/csv/${uuid}`)).status).toBe(200)
        })
    )

    it.scoped("the batch-search RPCs refuse it too, with each kind of credentials", () =>
      Effect.gen(function* () {
        const [owner] = yield* threeWays("rpcowner", "owner password", { projects: ["rpc-open", "rpc-secret"] })
        const outsider = yield* threeWays("rpcoutsider", "outsider password", { projects: ["rpc-open"] })
        const uuid = yield* createPublished(owner!, "rpc-open,rpc-secret")
        for (const credential of outsider) {
          const client = yield* quarryClient("ndjson", credential.rpc)
          expect(
            (yield* client.listBatchSearches()).map((search) => search.uuid),
            credential.name
          ).not.toContain(uuid)
          const refusals: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
            client.getBatchSearch({ uuid, withQueries: true }),
            Stream.runCollect(client.batchSearchResults({ uuid })),
            client.copyBatchSearch({ uuid, name: "stolen" }),
            client.publishBatchSearch({ uuid, published: false }),
            client.deleteBatchSearch({ uuid })
          ]
          for (const refused of refusals) expect(yield* Effect.flip(refused), credential.name).toBeInstanceOf(BatchSearchForbidden)
        }
      })
    )
  })
})
