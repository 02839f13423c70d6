import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
import { databaseLayer, DatabaseInfo } from "../../src/db/Database.ts"
import { runMigrations } from "../../src/db/Migrator.ts"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { dataSourceUrlFor, type DatabaseKind, databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { corpus, project, send, word } from "./boundedCorpus.ts"

/** Admission of bounded searches past the database's capacity: interactive searches refused with 429, batch ones waiting. */

/** A backend with two search slots and a queue of ten on a pool of three connections. */
const tinyPoolLayer = (kind: DatabaseKind) =>
  Layer.unwrapScoped(
    Effect.map(dataSourceUrlFor(kind), (url) => {
      const pool =
        kind === "postgres"
          ? Layer.merge(
              PgClient.layer({ url: Redacted.make(url), maxConnections: 3, connectTimeout: "2 seconds" }),
              Layer.succeed(DatabaseInfo, { kind, deliversNotifications: true })
            )
          : databaseLayer(url).pipe(Layer.orDie)
      const database = Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(Layer.orDie(pool)))
      const backend = makePostgresSearchBackend(0, { admission: { running: 2, queued: 10, maxWaitMillis: 3_000 } })
      const services = Layer.mergeAll(backend, PostgresDocumentIndex).pipe(Layer.provideMerge(database))
      const load = Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, corpus))
      return Layer.effectDiscard(load).pipe(Layer.provideMerge(services), Layer.orDie)
    })
  )

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`admission of searches on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(tinyPoolLayer(database), { timeout: 120_000 })((it) => {
      it.effect(
        "sixty concurrent searches on a tiny pool answer 200 or 429, never 500, while other statements still get a connection",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const searches = yield* Effect.all(
              Array.from({ length: 60 }, (_, index) =>
                send({
                  query: { fuzzy: { content: { value: word(index * 11), fuzziness: 2 } } },
                  aggs: { t: { terms: { field: "contentType" } } }
                })
              ),
              { concurrency: "unbounded" }
            ).pipe(Effect.fork)
            // Another request's statement while the searches run.
            expect(yield* sql<{ one: number }>`SELECT 1 AS one`).toEqual([{ one: 1 }])
            const answers = yield* Fiber.join(searches)
            const statuses = answers.map((answer) => answer.status)
            expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([])
            expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(2)
            expect(statuses).toContain(429)
            const refused = answers.find((answer) => answer.status === 429)!
            expect(refused.body).toMatchObject({ error: { type: "es_rejected_execution_exception" }, status: 429 })
            // Batch searches (not interactive) wait for their turn instead.
            const patient = yield* Effect.all(
              Array.from({ length: 30 }, (_, index) =>
                send({ query: { fuzzy: { content: { value: word(index * 17), fuzziness: 1 } } } }, `${project}/_search`, {
                  interactive: false
                })
              ),
              { concurrency: "unbounded" }
            )
            expect(patient.map((answer) => answer.status)).toEqual(patient.map(() => 200))
          }).pipe(Effect.withClock(Clock.make()))
      )
    })
  })
}
