import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { NewBatchSearch } from "../../src/domain/batch-search/BatchSearch.ts"
import { BatchSearchRepo } from "../../src/domain/batch-search/BatchSearchRepo.ts"
import { Engine } from "../../src/engine/Engine.ts"
import { BatchSearchJob } from "../../src/engine/kinds/BatchSearchJob.ts"
import { BatchSearchJobLive } from "../../src/engine/kinds/BatchSearchJobLive.ts"
import type { TaskId } from "../../src/domain/task/Task.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { PostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { clearTasks, eventually, readTask, startEngine, testDatabase } from "./helpers.ts"

const project = "batch-engine"
const words = ["anchor", "barge", "cargo", "dock", "ensign", "ferry", "galley", "harbour", "island", "jetty"]

/** 200 small documents, each holding three of the words, so that most queries match a few of them. */
const documents: ReadonlyArray<IndexedDocument> = Array.from({ length: 200 }, (_, i) => {
  const id = i.toString(16).padStart(96, "0")
  const content = `${words[i % 10]} ${words[(i * 3 + 1) % 10]} ${words[(i * 7 + 2) % 10]} report ${i}`
  return {
    id,
    path: `/data/doc-${i}.txt`,
    dirname: "/data",
    content,
    contentLength: content.length,
    contentTextLength: content.length,
    contentType: "text/plain",
    contentEncoding: "UTF-8",
    language: "ENGLISH",
    metadata: {},
    extractionDate: "2024-01-01T00:00:00.000Z",
    extractionLevel: 0,
    parentDocument: null,
    rootDocument: id,
    tags: [],
    nerTags: [],
    status: "INDEXED"
  }
})

/** Every pair of words as a query, and single words: 55 queries whose results differ. */
const queries = [...words, ...words.flatMap((a, i) => words.slice(i + 1).map((b) => `${a} ${b}`))]

const newSearch = (name: string): NewBatchSearch => ({
  name,
  description: "",
  userId: "local",
  published: false,
  phraseMatches: false,
  fuzziness: 0,
  fileTypes: [],
  paths: [],
  tags: [],
  projects: [project],
  queries
})

const kindLayer = BatchSearchJobLive.pipe(Layer.provide(Layer.mergeAll(BatchSearchRepo.Default, PostgresSearchBackend)))

/** The stored results of a batch search, in result order, without the batch's own id. */
const results = (uuid: string) => Effect.flatMap(BatchSearchRepo, (repo) => repo.results(uuid, {})).pipe(Effect.orDie)

const state = (uuid: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ state: string; batchResults: number }>`SELECT state, batch_results AS "batchResults" FROM batch_searches WHERE uuid = ${uuid}`
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows[0]!)
  )

const submit = (name: string, uuid: string) =>
  Effect.gen(function* () {
    yield* Effect.flatMap(BatchSearchRepo, (repo) => repo.insert(uuid, newSearch(name))).pipe(Effect.orDie)
    const engine = yield* Engine
    return yield* engine.submit(BatchSearchJob, { uuid }, { userId: "local", id: uuid })
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`BatchSearchJob on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const base = Layer.mergeAll(BatchSearchRepo.Default, PostgresDocumentIndex).pipe(Layer.provideMerge(testDatabase(database)))
    layer(base, { timeout: 180_000, excludeTestServices: true })((it) => {
      it.scoped(
        "a batch search handed back at shutdown resumes after its last finished query, with the results of an uninterrupted run",
        () =>
          Effect.gen(function* () {
            yield* clearTasks
            yield* Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)).pipe(Effect.orDie)

            const whole = "00000000-0000-4000-8000-000000000001"
            yield* Effect.scoped(
              Effect.gen(function* () {
                const context = yield* startEngine({}, kindLayer)
                const task = yield* Effect.provide(submit("whole", whole), context)
                yield* eventually(readTask(task.id), (t) => t.state === "DONE", "60 seconds")
              })
            )
            expect(yield* state(whole)).toMatchObject({ state: "SUCCESS" })
            const expected = yield* results(whole)
            expect(expected.length).toBeGreaterThan(queries.length)

            // The same batch search, its engine shut down once some queries are done: the task goes back to the queue.
            const interrupted = "00000000-0000-4000-8000-000000000002"
            const taskId = interrupted as TaskId
            yield* Effect.scoped(
              Effect.gen(function* () {
                const context = yield* startEngine({ progressInterval: "10 millis" }, kindLayer)
                yield* Effect.provide(submit("interrupted", interrupted), context)
                yield* eventually(readTask(taskId), (t) => t.progress !== null && t.progress > 0.1 && t.progress < 0.9, "60 seconds")
              })
            )
            const released = yield* readTask(taskId)
            expect(released.state).toBe("QUEUED")
            expect(yield* state(interrupted)).toMatchObject({ state: "RUNNING" })
            const partial = (yield* results(interrupted)).length
            expect(partial).toBeLessThan(expected.length)

            yield* startEngine({}, kindLayer)
            expect(yield* eventually(readTask(taskId), (t) => t.state === "DONE", "60 seconds")).toMatchObject({ attempts: 2 })
            expect(yield* state(interrupted)).toEqual({ state: "SUCCESS", batchResults: expected.length })
            const strip = (rows: ReadonlyArray<object>) => rows.map((row) => JSON.stringify(row))
            expect(strip(yield* results(interrupted))).toEqual(strip(expected))
          })
      )

      it.scoped("a stopped batch search ends in FAILURE and keeps the results of the queries it finished", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)).pipe(Effect.orDie)
          const uuid = "00000000-0000-4000-8000-000000000003"
          const context = yield* startEngine({ progressInterval: "10 millis" }, kindLayer)
          const task = yield* Effect.provide(submit("stopped", uuid), context)
          const running = yield* eventually(readTask(task.id), (t) => t.progress !== null && t.progress > 0.1, "60 seconds")
          expect(
            yield* Effect.provide(
              Effect.flatMap(Engine, (engine) => engine.stop(running)),
              context
            )
          ).toBe(true)
          const stopped = yield* eventually(state(uuid), (s) => s.state !== "RUNNING", "10 seconds")
          expect(stopped.state).toBe("FAILURE")
          expect(stopped.batchResults).toBe((yield* results(uuid)).length)
        })
      )

      it.scoped("a batch search stopped before its task starts ends in FAILURE too, not QUEUED for good", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const uuid = "00000000-0000-4000-8000-000000000004"
          // An engine without the batch search kind: its task stays queued, as under load before a worker claims it.
          const context = yield* startEngine({})
          const task = yield* Effect.provide(submit("stopped while queued", uuid), context)
          expect(yield* state(uuid)).toMatchObject({ state: "QUEUED" })
          expect(
            yield* Effect.provide(
              Effect.flatMap(Engine, (engine) => engine.stop(task)),
              context
            )
          ).toBe(true)
          expect(yield* readTask(task.id)).toMatchObject({ state: "CANCELLED" })
          expect(yield* state(uuid)).toEqual({ state: "FAILURE", batchResults: 0 })
          const message = yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql<{ message: string }>`SELECT error_message AS message FROM batch_searches WHERE uuid = ${uuid}`
          ).pipe(Effect.orDie)
          expect(message).toEqual([{ message: "the batch search was stopped" }])
        })
      )
    })
  })
}
