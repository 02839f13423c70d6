import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Metric } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { answerCacheHits } from "../../src/search/postgres/AnswerCache.ts"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { corpusLayer, documents, otherProject, project, search, send } from "./dsl/corpus.ts"
import { lockDocuments } from "./documentsLock.ts"

/** How many answers came from the cache while `effect` ran. */
const hitsDuring = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = (yield* Metric.value(answerCacheHits)).count
    const result = yield* effect
    return { result, hits: (yield* Metric.value(answerCacheHits)).count - before }
  })

const tagFacet = { size: 0, aggs: { tags: { terms: { field: "tags" } } } }
const bucketKeys = (response: { aggregations?: Record<string, { buckets?: ReadonlyArray<Record<string, unknown>> }> }) =>
  (response.aggregations?.tags?.buckets ?? []).map((bucket) => bucket.key)
const countOf = (path: string, body?: unknown) => Effect.map(send(path, body), (response) => (response.body as { count: number }).count)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`the embedded engine's answer cache on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect("a repeated search and a repeated count are answered from the cache with the same answer", () =>
        Effect.gen(function* () {
          const body = {
            query: { match: { content: "quick" } },
            aggs: { types: { terms: { field: "contentType" } } },
            highlight: { fields: { content: {} } }
          }
          const {
            result: [first, second],
            hits
          } = yield* hitsDuring(Effect.all([search(body), search(body)]))
          expect(hits).toBe(1)
          expect({ ...second, took: 0 }).toEqual({ ...first, took: 0 })
          expect(first.hits.hits.length).toBeGreaterThan(0)
          const counts = yield* hitsDuring(Effect.all([countOf(`${project}/_count`), countOf(`${project}/_count`)]))
          expect(counts.hits).toBe(1)
          expect(counts.result[1]).toBe(counts.result[0])
        })
      )

      it.effect("a tag, a new document, a hidden entity or a deleted index is seen by the very next search", () =>
        Effect.gen(function* () {
          const index = yield* DocumentIndex
          const sql = yield* SqlClient.SqlClient
          expect(bucketKeys(yield* search(tagFacet))).not.toContain("cache-check")
          yield* index.addTags(project, ["doc-notes"], ["cache-check"])
          expect(bucketKeys(yield* search(tagFacet))).toContain("cache-check")

          const before = yield* countOf(`${project}/_count`)
          yield* countOf(`${project}/_count`)
          yield* index.bulkIndex(project, [
            { ...documents[0]!, id: "doc-cache-new", rootDocument: "doc-cache-new", path: "/data/docs/new.txt" }
          ])
          expect(yield* countOf(`${project}/_count`)).toBe(before + 1)

          // Another process writing straight to the tables: only the database tells this one about it.
          const hidden = { query: { bool: { filter: [{ term: { type: "NamedEntity" } }, { term: { isHidden: true } }] } } }
          const hiddenBefore = yield* countOf(`${project}/_count`, hidden)
          yield* sql`UPDATE named_entities SET is_hidden = true WHERE project = ${project} AND id = 'ne-john'`
          expect(yield* countOf(`${project}/_count`, hidden)).toBe(hiddenBefore + 1)

          const otherCount = yield* countOf(`${otherProject}/_count`)
          expect(otherCount).toBeGreaterThan(0)
          yield* index.deleteIndex(otherProject)
          yield* index.createIndex(otherProject)
          expect(yield* countOf(`${otherProject}/_count`)).toBe(0)
        })
      )

      // Holding a lock while the search runs needs a second connection, which the embedded database does not have.
      // The test runs on the real clock, as `eventually` polls and the TestClock does not move by itself.
      if (database === "postgres") {
        it.effect(
          "identical searches that come while one runs wait for its answer instead of running their own (a lock holds the first)",
          () =>
            Effect.gen(function* () {
              const body = { query: { match: { content: "fox" } }, size: 3, aggs: { types: { terms: { field: "contentType" } } } }
              const { waiting, release, holder } = yield* lockDocuments
              const before = (yield* Metric.value(answerCacheHits)).count
              const searches = yield* Effect.all(
                Array.from({ length: 8 }, () => search(body)),
                { concurrency: "unbounded" }
              ).pipe(Effect.fork)
              // Seven requests join the first while its statement waits for the lock: one statement waits, not eight.
              yield* eventually(Metric.value(answerCacheHits), (hits) => hits.count - before === 7)
              expect(yield* waiting).toBe(1)
              yield* Deferred.succeed(release, undefined)
              yield* Fiber.join(holder)
              const answers = yield* Fiber.join(searches)
              expect(answers[0]!.hits.hits.length).toBeGreaterThan(0)
              for (const answer of answers) expect({ ...answer, took: 0 }).toEqual({ ...answers[0]!, took: 0 })
            }).pipe(Effect.withClock(Clock.make()))
        )
      }

      it.effect("a search whose date math reads the clock is answered afresh every time", () =>
        Effect.gen(function* () {
          const body = { query: { range: { extractionDate: { gte: "now-100y" } } } }
          const {
            result: [first, second],
            hits
          } = yield* hitsDuring(Effect.all([search(body), search(body)]))
          expect(hits).toBe(0)
          expect(second.hits.total).toEqual(first.hits.total)
          const typed = yield* hitsDuring(
            Effect.all([
              search({ query: { query_string: { query: "extractionDate:[now-100y TO now]" } } }),
              search({ query: { query_string: { query: "extractionDate:[now-100y TO now]" } } })
            ])
          )
          expect(typed.hits).toBe(0)
        })
      )
    })
  })
}
