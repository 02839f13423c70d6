import * as http from "node:http"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { request, TestServer, testServerLayer } from "../helpers/server.ts"
import { documents } from "./dsl/corpus.ts"
import { lockDocuments } from "./documentsLock.ts"

/** Bounded searches through the HTTP proxy: a client that goes away stops its search; a burst never gets a 500. */

const project = "bounded-http"

/** Runs `effect` with the server's own services (its database pool, its document index). */
const inServer = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | DocumentIndex>) =>
  Effect.flatMap(TestServer, (server) => Effect.provide(effect, server.context)).pipe(Effect.orDie)

const indexCorpus = inServer(Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)))

const search = (body: unknown) =>
  Effect.map(
    request(`/api/index/search/${project}/_search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    }),
    (response) => response.status
  )

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`bounded searches through the proxy on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000 })((it) => {
      it.effect("a burst of 80 different searches answers 200 or 429, never 500, and the status page keeps answering", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          const burst = yield* Effect.all(
            Array.from({ length: 80 }, (_, index) =>
              search({
                query: { query_string: { query: `quick~2 OR fox${index}* OR *${index}ing` } },
                aggs: { t: { terms: { field: "tags" } } }
              })
            ),
            { concurrency: "unbounded" }
          ).pipe(Effect.fork)
          expect((yield* request("/api/status")).status).toBe(200)
          const statuses = yield* Fiber.join(burst)
          expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([])
          expect(statuses).toContain(200)
        }).pipe(Effect.withClock(Clock.make()))
      )

      // Holding a lock needs a second session, which the embedded database does not have.
      if (database === "postgres") {
        it.effect("a client that disconnects before its answer stops the search's statement", () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            yield* indexCorpus
            const { waiting, release, holder } = yield* inServer(lockDocuments)
            const outgoing = http.request(`${server.url}/api/index/search/${project}/_search`, {
              method: "POST",
              headers: { "content-type": "application/json" }
            })
            outgoing.on("error", () => undefined)
            outgoing.end(JSON.stringify({ query: { match: { content: "lazy" } } }))
            yield* eventually(waiting, (count) => count === 1)
            outgoing.destroy()
            yield* eventually(waiting, (count) => count === 0)
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(holder)
            expect(yield* search({ query: { match: { content: "lazy" } } })).toBe(200)
          }).pipe(Effect.withClock(Clock.make()))
        )
      }
    })
  })
}
