import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Metric, Stream } from "effect"
import { resultPagesRead } from "../../src/domain/batch-search/BatchSearches.ts"
import { openResultStreams } from "../../src/rpc/BatchSearchRpcHandlers.ts"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { shipsAndBank } from "../helpers/indexing.ts"
import { testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"
import { runSql } from "../review/helpers.ts"
import { quarryClient } from "./client.ts"

const project = "local-datashare"

type Client = Effect.Effect.Success<ReturnType<typeof quarryClient>>

/** The batch search once its run has ended. */
const finished = (client: Client, uuid: string) =>
  eventually(
    client.getBatchSearch({ uuid, withQueries: true }),
    (search) => search.state === "SUCCESS" || search.state === "FAILURE",
    "60 seconds"
  )

const corpus = shipsAndBank(project)

const gauge = Effect.map(Metric.value(openResultStreams), (state) => state.value)
const pagesRead = Effect.map(Metric.value(resultPagesRead), (state) => state.count)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Batch search RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("create from a list of queries, list, get, stream the results page by page, delete", () =>
        Effect.gen(function* () {
          const documents = yield* corpus
          const client = yield* quarryClient()
          // A one-character query and a duplicate are dropped, as CSV lines are.
          const uuid = yield* client.createBatchSearch({
            projects: [project],
            name: "ships",
            description: "vessels",
            queries: ["tanker", "offshore", "x", "tanker", "nothingmatches"]
          })
          const search = yield* finished(client, uuid)
          expect(search).toMatchObject({
            uuid,
            name: "ships",
            description: "vessels",
            state: "SUCCESS",
            nbQueries: 3,
            nbResults: 4,
            fuzziness: 0,
            phraseMatches: false
          })
          expect(search.queries).toEqual({ tanker: 2, offshore: 2, nothingmatches: 0 })
          expect(search.projects.map((one) => one.name)).toEqual([project])
          expect((yield* client.listBatchSearches()).map((one) => one.uuid)).toContain(uuid)

          const pagesBefore = yield* pagesRead
          const rows = Chunk.toReadonlyArray(yield* Stream.runCollect(client.batchSearchResults({ uuid, pageSize: 1 })))
          expect(rows.map((row) => [row.query, row.documentNumber])).toEqual([
            ["tanker", 0],
            ["tanker", 1],
            ["offshore", 0],
            ["offshore", 1]
          ])
          const tankers = documents.filter((document) => document.content.includes("tanker")).map((document) => document.id)
          expect(
            rows
              .filter((row) => row.query === "tanker")
              .map((row) => row.documentId)
              .sort()
          ).toEqual([...tankers].sort())
          // Four full pages of one row, then the empty page that ends the stream.
          expect((yield* pagesRead) - pagesBefore).toBe(5)
          const offshore = Chunk.toReadonlyArray(
            yield* Stream.runCollect(client.batchSearchResults({ uuid, queries: ["tanker"], queriesExcluded: true }))
          )
          expect(offshore.map((row) => row.query)).toEqual(["offshore", "offshore"])

          const page = yield* client.filterBatchSearches({ query: "vessel", size: 10 })
          expect([page.total, page.items.map((one) => one.uuid)]).toEqual([1, [uuid]])
          expect((yield* client.filterBatchSearches({ query: "nothing like it" })).total).toBe(0)
          const copy = yield* client.copyBatchSearch({ uuid, name: "ships again" })
          expect(yield* finished(client, copy)).toMatchObject({
            name: "ships again",
            description: "vessels",
            state: "SUCCESS",
            nbResults: 4
          })
          expect(yield* client.copyBatchSearch({ uuid: "missing" }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchNotFound" })
          expect(yield* client.deleteBatchSearch({ uuid: copy })).toBe(true)

          expect(yield* client.stopBatchSearch({ uuid })).toBe(false)
          expect(yield* client.deleteBatchSearch({ uuid })).toBe(true)
          expect(yield* client.deleteBatchSearch({ uuid })).toBe(false)
          expect(yield* client.getBatchSearch({ uuid }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchNotFound", uuid })
          expect(yield* client.batchSearchResults({ uuid }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({
            _tag: "BatchSearchNotFound"
          })
        })
      )

      it.scoped("refusals surface as the legacy endpoints' typed errors", () =>
        Effect.gen(function* () {
          const client = yield* quarryClient()
          expect(yield* client.createBatchSearch({ projects: [project], name: " ", queries: ["tanker"] }).pipe(Effect.flip)).toMatchObject({
            _tag: "InvalidBatchSearch",
            reason: "name is required"
          })
          expect(
            yield* client.createBatchSearch({ projects: [project], name: "short", queries: ["a", "b"] }).pipe(Effect.flip)
          ).toMatchObject({ _tag: "InvalidBatchSearch" })
          const tooMany = Array.from({ length: 60_000 }, (_, index) => `query ${index}`)
          expect(yield* client.createBatchSearch({ projects: [project], name: "big", queries: tooMany }).pipe(Effect.flip)).toMatchObject({
            _tag: "TooManyQueries",
            count: 60_000
          })
          expect(
            yield* client.createBatchSearch({ projects: ["not-a-project"], name: "elsewhere", queries: ["tanker"] }).pipe(Effect.flip)
          ).toMatchObject({ _tag: "ProjectForbidden", project: "not-a-project" })
          expect(yield* client.stopBatchSearch({ uuid: "missing" }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskNotFound" })
        })
      )

      it.scoped("stopping a running batch search cancels its task and ends it in FAILURE", () =>
        Effect.gen(function* () {
          yield* corpus
          const client = yield* quarryClient()
          const queries = Array.from({ length: 3_000 }, (_, index) => `tanker${index}`)
          const uuid = yield* client.createBatchSearch({ projects: [project], name: "long", queries })
          expect(yield* client.stopBatchSearch({ uuid })).toBe(true)
          expect(yield* finished(client, uuid)).toMatchObject({ state: "FAILURE", errorMessage: "the batch search was stopped" })
          expect(yield* client.deleteBatchSearch({ uuid })).toBe(true)
        })
      )

      it.scoped("a followed results stream cancelled by its client stops reading on the server", () =>
        Effect.gen(function* () {
          yield* corpus
          const client = yield* quarryClient()
          const uuid = yield* client.createBatchSearch({ projects: [project], name: "follow", queries: ["tanker", "offshore", "cargo"] })
          yield* finished(client, uuid)
          // As if its run were still going: a followed stream of it never ends by itself, it waits for more results.
          yield* runSql((sql) => sql`UPDATE batch_searches SET state = 'RUNNING' WHERE uuid = ${uuid}`)
          const openWhileReading: Array<number> = []
          const taken = yield* client.batchSearchResults({ uuid, pageSize: 1, follow: true }).pipe(
            Stream.tap(() => Effect.flatMap(gauge, (open) => Effect.sync(() => openWhileReading.push(open)))),
            Stream.take(3),
            Stream.runCollect
          )
          expect(Chunk.size(taken)).toBe(3)
          expect(openWhileReading).toEqual([1, 1, 1])
          // The client left after three rows: the server's stream ends, and with it the reading of pages.
          yield* eventually(gauge, (open) => open === 0)
          const pagesAfterCancel = yield* pagesRead
          yield* runSql((sql) => sql`UPDATE batch_searches SET state = 'SUCCESS' WHERE uuid = ${uuid}`)
          const all = yield* Stream.runCollect(client.batchSearchResults({ uuid, pageSize: 100 }))
          expect(Chunk.size(all)).toBe(6)
          expect((yield* pagesRead) - pagesAfterCancel).toBe(1)
        })
      )
    })
  })
}

describe("Batch search RPCs in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("refuse another user's projects and batch searches", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw-a", { projects: ["alpha"] })
        yield* addUser("bob", "pw-b", { projects: ["beta"] })
        const alice = yield* quarryClient("ndjson", { _tag: "Basic", user: "alice", password: "pw-a" })
        const bob = yield* quarryClient("ndjson", { _tag: "Basic", user: "bob", password: "pw-b" })
        expect(yield* alice.createBatchSearch({ projects: ["beta"], name: "theirs", queries: ["tanker"] }).pipe(Effect.flip)).toMatchObject(
          { _tag: "ProjectForbidden", project: "beta" }
        )
        const uuid = yield* bob.createBatchSearch({ projects: ["beta"], name: "bob's", queries: ["tanker"] })
        yield* finished(bob, uuid)
        expect(yield* alice.getBatchSearch({ uuid }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchNotFound" })
        expect(yield* alice.batchSearchResults({ uuid }).pipe(Stream.runDrain, Effect.flip)).toMatchObject({ _tag: "BatchSearchNotShared" })
        expect(yield* alice.stopBatchSearch({ uuid }).pipe(Effect.flip)).toMatchObject({ _tag: "TaskForbidden" })
        expect(yield* alice.deleteBatchSearch({ uuid })).toBe(false)
        expect(yield* alice.listBatchSearches()).toEqual([])
        expect((yield* bob.listBatchSearches()).map((one) => one.uuid)).toEqual([uuid])
        // Published, it is listed for and readable by the users of its project; others get 403 (issue 22).
        yield* addUser("carol", "pw-c", { projects: ["beta"] })
        const carol = yield* quarryClient("ndjson", { _tag: "Basic", user: "carol", password: "pw-c" })
        expect(yield* carol.getBatchSearch({ uuid }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchNotFound" })
        expect(yield* alice.publishBatchSearch({ uuid, published: true }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchNotFound" })
        yield* bob.publishBatchSearch({ uuid, published: true })
        expect((yield* carol.getBatchSearch({ uuid })).published).toBe(true)
        expect(Chunk.size(yield* Stream.runCollect(carol.batchSearchResults({ uuid })))).toBe(0)
        expect((yield* carol.listBatchSearches()).map((one) => one.uuid)).toEqual([uuid])
        expect(yield* alice.listBatchSearches()).toEqual([])
        expect(yield* alice.getBatchSearch({ uuid }).pipe(Effect.flip)).toMatchObject({ _tag: "BatchSearchForbidden" })
      })
    )
  })
})
