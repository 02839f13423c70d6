/** PostgresDocumentIndex's upkeep after writes: lexicon words left for later, added in steps, and the refresh. */
import { Statement } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Option } from "effect"
import { InteractiveFirst } from "../../src/db/InteractiveFirst.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { numberedCopy, templateDocument, withServer } from "./indexHelpers.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`PostgresDocumentIndex's upkeep on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect(
        database === "pglite"
          ? "leaves a bulk write's lexicon words to finishWrites, which adds them and renews the answers, even after a restart"
          : "adds a bulk write's lexicon words at once, whatever finishLater says",
        () =>
          Effect.gen(function* () {
            const project = "later"
            const document = yield* templateDocument(project, "later.txt", "Zanzibarite quokkafish.\n")
            const wildcardHits = Effect.flatMap(
              request(`/api/index/search/${project}/_search`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ query: { query_string: { query: "zanz?barite" } } })
              }),
              (response) => Effect.map(bodyJson(response), (body) => (body as { hits: { total: { value: number } } }).hits.total.value)
            )
            const pendingRows = withServer((_, sql) =>
              Effect.map(sql<{ count: number }>`SELECT count(*)::int AS count FROM index_words_pending`, (rows) => rows[0]!.count)
            )
            yield* withServer((index) => index.bulkIndex(project, [document], { finishLater: true }))
            // The word itself is searchable at once; what waits is the expansion of terms against the lexicon.
            const exact = yield* request(`/api/index/search/${project}/_search`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ query: { query_string: { query: "zanzibarite" } } })
            })
            expect((yield* bodyJson(exact)) as unknown).toMatchObject({ hits: { total: { value: 1 } } })
            if (database === "postgres") {
              expect([yield* wildcardHits, yield* pendingRows]).toEqual([1, 0])
              return
            }
            expect([yield* wildcardHits, yield* pendingRows]).toEqual([0, 1])
            // A process that stopped here lost nothing: the list is in the database, and the next finishWrites (an index
            // task calls it first) adds the words; the answer cached above is not served again.
            yield* withServer((index) => index.finishWrites(project))
            expect([yield* wildcardHits, yield* pendingRows]).toEqual([1, 0])
          })
      )

      it.effect.skipIf(database === "postgres")(
        "adds the words left for later in smaller steps while people search, and refreshes in steps behind the searches",
        () =>
          Effect.gen(function* () {
            const project = "later-steps"
            const template = yield* templateDocument(project, "steps.txt", "Steps.\n")
            // Documents of 1,200 distinct words each: steps of 3,000 words while people search take three, then one.
            const documents = [1, 2, 3, 4, 5, 6].map((n) => ({
              ...numberedCopy(template, n),
              path: `/steps/${n}.txt`,
              content: Array.from({ length: 1_200 }, (_, word) => `d${n}w${word}`).join(" ")
            }))
            // The embedded database's scheduler of searches and background writes, which the server runs with.
            const turns = Option.getOrThrow(
              yield* Effect.flatMap(TestServer, (server) => Effect.provide(Effect.serviceOption(InteractiveFirst), server.context))
            )
            /** The effect's statements that contain `text`, with the time each was sent. */
            const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>, text: string) =>
              Effect.gen(function* () {
                const sent: Array<number> = []
                yield* effect.pipe(
                  Statement.withTransformer((statement) =>
                    Effect.sync(() => {
                      if (statement.compile()[0].includes(text)) sent.push(Date.now())
                      return statement
                    })
                  )
                )
                return sent
              })
            const finishSteps = (project: string) =>
              statementsOf(
                withServer((index) => index.finishWrites(project)),
                "FROM index_words_pending p"
              )

            yield* withServer((index) => index.bulkIndex(project, documents.slice(0, 2), { finishLater: true }))
            const alone = yield* finishSteps(project)
            yield* withServer((index) => index.bulkIndex(project, documents.slice(2), { finishLater: true }))
            yield* turns.interactive(Effect.void)
            const whileSearching = yield* finishSteps(project)
            // Each ends with a step that finds nothing left.
            expect([alone.length, whileSearching.length]).toEqual([2, 3])

            // A search in progress holds back every step of the refresh, which then leaves fresh statistics.
            const searchEnded = yield* Deferred.make<number>()
            const search = yield* Effect.fork(
              turns.interactive(
                Effect.sleep("600 millis").pipe(
                  Effect.zipRight(Effect.sync(() => Date.now())),
                  Effect.flatMap((now) => Deferred.succeed(searchEnded, now))
                )
              )
            )
            yield* Effect.sleep("20 millis")
            const refreshSteps = yield* statementsOf(
              withServer((index) => index.refresh()),
              "gin_clean_pending_list"
            )
            yield* Fiber.join(search)
            expect(refreshSteps.length).toBeGreaterThan(0)
            expect(refreshSteps[0]).toBeGreaterThanOrEqual(yield* Deferred.await(searchEnded))
            const statistics = yield* withServer(
              (_, sql) =>
                sql<{
                  attname: string
                }>`SELECT attname FROM pg_stats WHERE tablename = 'documents' AND attname IN ('content_tsv', 'path') ORDER BY 1`
            )
            expect(statistics.map((row) => row.attname)).toEqual(["content_tsv", "path"])
          }).pipe(Effect.withClock(Clock.make()))
      )

      it.effect("deletes the words an index write left for later with the index", () =>
        Effect.gen(function* () {
          const project = "later-deleted"
          const document = yield* templateDocument(project, "deleted.txt", "Marmalith.\n")
          yield* withServer((index) => index.bulkIndex(project, [document], { finishLater: true }))
          yield* withServer((index) => index.deleteIndex(project))
          const left = yield* withServer(
            (_, sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM index_words_pending WHERE project = ${project}`
          )
          expect(left[0]!.count).toBe(0)
        })
      )
    })
  })
}
