import { describe, expect, it, layer } from "@effect/vitest"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { resolveSettings, Settings } from "../../src/config/Settings.ts"
import { hitsOf, type QueryOptions, searchBody } from "../../src/domain/batch-search/BatchQuery.ts"
import type { NewBatchSearch } from "../../src/domain/batch-search/BatchSearch.ts"
import { BatchSearchRepo } from "../../src/domain/batch-search/BatchSearchRepo.ts"
import { embeddedQuery, searchEmbedded } from "../../src/domain/batch-search/EmbeddedBatchSearch.ts"
import { Engine } from "../../src/engine/Engine.ts"
import { BatchSearchJob } from "../../src/engine/kinds/BatchSearchJob.ts"
import { BatchSearchJobLive } from "../../src/engine/kinds/BatchSearchJobLive.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { PostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../../src/search/SearchBackend.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { clearTasks, eventually, readTask, startEngine, testDatabase } from "./helpers.ts"

const project = "batch-embedded"
const other = "batch-embedded-other"
const words = ["anchor", "barge", "cargo", "dock", "ensign", "ferry", "galley", "harbour", "island", "jetty"]
const types = ["text/plain", "application/pdf", "message/rfc822"]

/**
 * Documents whose words, metadata, paths, folders, types and tags vary, with many equal contents (ties broken by id),
 * accented words (folded in the content only), words only in the metadata or the path, and a document named as a
 * whole path would be searched.
 */
const documents = (index: string, count: number): ReadonlyArray<IndexedDocument> =>
  Array.from({ length: count }, (_, i) => {
    const id = `${index}-${i.toString(16).padStart(8, "0")}`
    const content =
      i % 7 === 0
        ? `${words[i % 10]} ${words[(i + 1) % 10]} Côte ${words[(i + 1) % 10]}`
        : `${words[i % 10]} ${words[(i * 3 + 1) % 10]} ${words[(i * 7 + 2) % 10]} ${words[i % 4]} report ${i % 5}`
    const dirname = `/data/${["ships", "ports", "crews"][i % 3]}/${i % 2 === 0 ? "old" : "new"}`
    return {
      id,
      path: i === 5 ? "jetty" : `${dirname}/doc-${i}.txt`,
      dirname,
      content,
      contentLength: content.length,
      contentTextLength: content.length,
      contentType: types[i % 3]!,
      contentEncoding: "UTF-8",
      language: "ENGLISH",
      metadata: {
        ...(i % 4 === 0 ? { tika_metadata_title: `Lighthouse ${words[(i + 5) % 10]} Éclat` } : {}),
        ...(i % 6 === 0 ? { tika_metadata_dcterms_created: "2021-03-04T05:06:07Z" } : {}),
        ...(i % 9 === 0 ? { tika_metadata_dcterms_created: "not a date" } : {})
      },
      extractionDate: "2024-01-01T00:00:00.000Z",
      extractionLevel: 0,
      parentDocument: i % 8 === 3 ? `${index}-root` : null,
      rootDocument: i % 8 === 3 ? `${index}-root` : id,
      tags: i % 5 === 0 ? ["Urgent"] : i % 5 === 1 ? ["review"] : [],
      nerTags: [],
      status: "INDEXED"
    }
  })

const plain: QueryOptions = { phraseMatches: false, fuzziness: 0, fileTypes: [], paths: [], tags: [] }

/** Lines of a CSV in the forms the embedded statement takes. */
const plainQueries = [
  "anchor",
  "barge dock",
  "cargo AND ferry",
  "galley OR island",
  "harbour && jetty",
  "anchor || ensign",
  "cote",
  "Côte",
  "lighthouse",
  "eclat",
  "Éclat",
  "ships",
  "crews AND anchor",
  "txt",
  "jetty",
  "doc-14",
  "ferry report",
  "anchor barge AND dock",
  "urgent",
  "nothing",
  "0 AND cargo"
]
const phraseQueries = ["anchor barge", "barge barge", "côte barge", "lighthouse anchor", "anchor", "dock cargo report", "data ships"]

/** Option sets of batch searches, each with the lines to try. */
const cases: ReadonlyArray<readonly [string, QueryOptions, ReadonlyArray<string>]> = [
  ["plain words", plain, plainQueries],
  ["phrases", { ...plain, phraseMatches: true }, phraseQueries],
  ["phrases with slop", { ...plain, phraseMatches: true, fuzziness: 2 }, phraseQueries],
  ["content types", { ...plain, fileTypes: ["application/pdf", "message/rfc822"] }, plainQueries],
  ["folders", { ...plain, paths: ["/data/ships", "/data/ships/old"] }, plainQueries],
  ["tags", { ...plain, tags: ["urgent", "REVIEW"] }, plainQueries],
  [
    "everything",
    { ...plain, phraseMatches: true, fuzziness: 1, fileTypes: ["text/plain"], paths: ["/data/crews"], tags: ["urgent"] },
    phraseQueries
  ]
]

/** What the search backend answers for a line: its hits, best first. */
const backendHits = (projects: ReadonlyArray<string>, query: string, options: QueryOptions) =>
  Effect.gen(function* () {
    const backend = yield* SearchBackend
    const response = yield* backend.handle({
      method: "POST",
      path: `${projects.join(",")}/_search`,
      query: new URLSearchParams(),
      body: searchBody(query, options, 0, 1_000)
    })
    expect(response.status).toBe(200)
    return hitsOf(response.body)
  })

const embeddedHits = (
  projects: ReadonlyArray<string>,
  queries: ReadonlyArray<string>,
  options: QueryOptions,
  limits = { perQuery: 10_000, total: 56_500 }
) =>
  searchEmbedded(
    projects,
    options,
    queries.map((query, queryNumber) => ({ queryNumber, plan: embeddedQuery(query, options)! })),
    limits
  ).pipe(Effect.orDie)

const newSearch = (queries: ReadonlyArray<string>, options: QueryOptions): NewBatchSearch => ({
  name: "mixed",
  description: "",
  userId: "local",
  published: false,
  projects: [project],
  queries,
  ...options
})

/** The two projects' documents; indexing them again changes nothing. */
const indexCorpus = Effect.flatMap(DocumentIndex, (index) =>
  Effect.all([index.bulkIndex(project, documents(project, 120)), index.bulkIndex(other, documents(other, 40))])
).pipe(Effect.orDie)

const kindLayer = BatchSearchJobLive.pipe(Layer.provide(Layer.mergeAll(BatchSearchRepo.Default, PostgresSearchBackend)))

/** Settings naming an Elasticsearch cluster, so Quarry's search backend is Elasticsearch. */
const elasticsearchSettings = Layer.effect(
  Settings,
  resolveSettings({
    env: {},
    cli: { elasticsearchAddress: "http://127.0.0.1:9200" },
    defaultSettingsFile: path.join(os.tmpdir(), "quarry-no-settings.properties")
  }).pipe(Effect.orDie)
)

/** A stand-in for the cluster: one hit a search, named after the query string it was sent. */
const clusterBackend = Layer.succeed(SearchBackend, {
  handle: (request) => {
    const body = request.body as { query: { bool: { must: ReadonlyArray<{ query_string?: { query: string } }> } } }
    const query = body.query.bool.must.find((clause) => clause.query_string !== undefined)?.query_string?.query ?? ""
    return Effect.succeed({
      status: 200,
      body: { hits: { hits: [{ _index: project, _id: `es:${query}`, _source: { path: `/es/${query}` } }] } }
    })
  }
})

describe("embeddedQuery", () => {
  it("reads bare words and one kind of operator, and leaves the rest to the engine's parser", () => {
    expect(embeddedQuery("barge dock", plain)).toEqual({
      parts: [{ content: "'barge' | 'dock'", metadata: "'barge' | 'dock'", text: "barge dock" }],
      required: "any"
    })
    expect(embeddedQuery("Côte AND dock", plain)?.parts.map((part) => [part.content, part.metadata])).toEqual([
      ["'cote'", "'côte'"],
      ["'dock'", "'dock'"]
    ])
    expect(embeddedQuery("a b", { ...plain, phraseMatches: true, fuzziness: 1 })?.parts[0]?.content).toContain("<2>")
    for (const line of ["anchor~1", "anchor*", "NOT anchor", "-anchor", "a AND b OR c", "AND a", "a OR", "path:x", '"a b"', "(a)", "a/b"]) {
      expect(embeddedQuery(line, plain)).toBeUndefined()
    }
    expect(embeddedQuery("anchor", { ...plain, fuzziness: 1 })).toBeUndefined()
    expect(embeddedQuery('say "anchor"', { ...plain, phraseMatches: true })).toBeUndefined()
  })
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`embedded batch search on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const base = Layer.mergeAll(BatchSearchRepo.Default, PostgresDocumentIndex, PostgresSearchBackend).pipe(
      Layer.provideMerge(testDatabase(database))
    )
    layer(base, { timeout: 180_000, excludeTestServices: true })((it) => {
      it.effect("finds the documents the search backend finds, in the same order, for every form of line it takes", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          for (const [name, options, queries] of cases) {
            for (const projects of [[project], [project, other]]) {
              const found = yield* embeddedHits(projects, queries, options)
              for (const [queryNumber, query] of queries.entries()) {
                expect({ name, query, hits: found.get(queryNumber) }).toEqual({
                  name,
                  query,
                  hits: yield* backendHits(projects, query, options)
                })
              }
            }
          }
        })
      )

      it.scoped("sends every line to the search backend when it is Elasticsearch", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* indexCorpus
          const repo = yield* BatchSearchRepo
          const uuid = "00000000-0000-4000-8000-0000000000e3"
          yield* repo.insert(uuid, newSearch(["anchor", "barge dock"], plain)).pipe(Effect.orDie)
          const onElasticsearch = BatchSearchJobLive.pipe(
            Layer.provide(Layer.mergeAll(BatchSearchRepo.Default, clusterBackend, elasticsearchSettings))
          )
          const engine = yield* Effect.provide(Engine, yield* startEngine({}, onElasticsearch))
          const task = yield* engine.submit(BatchSearchJob, { uuid }, { userId: "local", id: uuid })
          yield* eventually(readTask(task.id), (t) => t.state === "DONE", "60 seconds")
          const stored = yield* repo.results(uuid, {}).pipe(Effect.orDie)
          expect(stored.map((row) => [row.docId, row.docPath])).toEqual([
            ["es:anchor", "/es/anchor"],
            ["es:barge dock", "/es/barge dock"]
          ])
        })
      )

      it.effect("keeps the first hits of each query within the per-query and the whole batch's limits", () =>
        Effect.gen(function* () {
          yield* indexCorpus
          // Queries of one shape, so one statement: its limit is the whole batch's.
          const queries = ["anchor", "barge", "cargo", "dock"]
          const found = yield* embeddedHits([project], queries, plain, { perQuery: 7, total: 16 })
          const expected = yield* Effect.forEach(queries, (query) => backendHits([project], query, plain))
          expect(queries.map((_, queryNumber) => found.get(queryNumber))).toEqual([
            expected[0]!.slice(0, 7),
            expected[1]!.slice(0, 7),
            expected[2]!.slice(0, 2),
            []
          ])
        })
      )

      it.scoped("stores what a search of each line through the backend finds, lines the statement takes or not mixed", () =>
        Effect.gen(function* () {
          yield* clearTasks
          yield* indexCorpus
          const repo = yield* BatchSearchRepo
          const runs = [
            [
              "00000000-0000-4000-8000-0000000000e1",
              plain,
              ["anchor", "barge*", "cargo AND dock", "NOT ferry", "galley", "anchor~1", "island OR jetty", "Côte"]
            ],
            // Fuzzy words are left to the engine (each line then gets `~1` on every word, operators included).
            ["00000000-0000-4000-8000-0000000000e2", { ...plain, fuzziness: 1 }, ["anchr", "barge dock", "Côte", "galey"]]
          ] as const
          for (const [uuid, options, queries] of runs) {
            yield* repo.insert(uuid, newSearch(queries, options)).pipe(Effect.orDie)
            yield* Effect.scoped(
              Effect.gen(function* () {
                const engine = yield* Effect.provide(Engine, yield* startEngine({}, kindLayer))
                const task = yield* engine.submit(BatchSearchJob, { uuid }, { userId: "local", id: uuid })
                yield* eventually(readTask(task.id), (t) => t.state === "DONE", "60 seconds")
              })
            )
            const stored = yield* repo.results(uuid, {}).pipe(Effect.orDie)
            const expected = yield* Effect.forEach(queries, (query) =>
              Effect.map(backendHits([project], query, options), (hits) =>
                hits.map((hit, rank) => ({
                  query,
                  docNb: rank,
                  docId: hit.id,
                  rootId: hit.rootId,
                  docPath: hit.path,
                  creationDate: hit.creationDate,
                  contentType: hit.contentType,
                  contentLength: hit.contentLength,
                  project: hit.project
                }))
              )
            )
            expect(stored).toEqual(expected.flat())
            const counts = yield* repo.queries(uuid, { from: 0, size: 0, orderBy: "query_number", maxResults: -1 }).pipe(Effect.orDie)
            expect(counts.map((count) => count.queryResults)).toEqual(expected.map((hits) => hits.length))
          }
        })
      )
    })
  })
}
