import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { DocumentNotFound, InvalidContentRequest } from "../../src/domain/document/DocumentErrors.ts"
import { InvalidMarks } from "../../src/domain/document/DocumentMarkErrors.ts"
import { InvalidTaskOption } from "../../src/domain/ingest/IngestOptions.ts"
import { Forbidden } from "../../src/domain/RequestErrors.ts"
import { SearchFailed } from "../../src/rpc/SearchRpcs.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { TestServer, testServerLayer } from "../helpers/server.ts"
import { quarryClient } from "./client.ts"

const project = "local-datashare"

/** Files in a folder of the data folder: three mention a zebra. */
const writeCorpus = Effect.gen(function* () {
  const server = yield* TestServer
  const folder = path.join(server.workDir, "corpus")
  yield* Effect.promise(() => fs.mkdir(folder, { recursive: true }))
  const texts = ["A zebra crossed the road.", "Zebra stripes and a zebra foal.", "The zebra report, annual.", "Nothing about horses."]
  yield* Effect.promise(() => Promise.all(texts.map((text, n) => fs.writeFile(path.join(folder, `note-${n}.txt`), text))))
  return folder
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Ingest, search and document RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("index a folder, search it, then read, tag, star and mark its documents", () =>
        Effect.gen(function* () {
          const client = yield* quarryClient("ndjson")
          const folder = yield* writeCorpus
          const { scan, index } = yield* client.scanAndIndex({ path: folder, options: { parallelism: 2 } })
          const final = Chunk.toReadonlyArray(yield* Stream.runCollect(client.watchManyTasks({ ids: [scan.id, index.id] })))
          expect(
            final
              .filter((task) => task.state === "DONE")
              .map((task) => task.id)
              .sort()
          ).toEqual([scan.id, index.id].sort())

          // Searches: typed, streamed, and as Elasticsearch requests.
          const found = yield* client.searchDocuments({ query: "zebra", projects: [project] })
          expect(found.total).toBe(3)
          expect(found.hits.map((hit) => path.basename(hit.path)).sort()).toEqual(["note-0.txt", "note-1.txt", "note-2.txt"])
          expect(found.hits[0]).toMatchObject({ project, contentType: "text/plain" })
          expect((yield* client.searchDocuments({ query: "zebra", projects: [project], from: 1, size: 1 })).hits).toHaveLength(1)
          const streamed = Chunk.toReadonlyArray(
            yield* Stream.runCollect(client.streamDocuments({ query: "zebra", projects: [project], pageSize: 2 }))
          )
          expect(streamed.map((hit) => hit.id).sort()).toEqual(found.hits.map((hit) => hit.id).sort())
          expect(yield* client.searchDocuments({ query: "zebra AND (", projects: [project] }).pipe(Effect.flip)).toBeInstanceOf(
            SearchFailed
          )
          const raw = yield* client.searchRaw({ projects: [project], body: { query: { match: { content: "horses" } }, size: 5 } })
          expect(raw.status).toBe(200)
          expect(raw.body).toMatchObject({ hits: { hits: [{ _index: project, _source: { path: path.join(folder, "note-3.txt") } }] } })
          expect(yield* client.searchRaw({ projects: [project], endpoint: "_count", body: { query: { match_all: {} } } })).toMatchObject({
            status: 200,
            body: { count: 4 }
          })
          expect(yield* client.searchRaw({ projects: ["unknown-project"], body: {} })).toMatchObject({ status: 404 })

          // One document: its fields, its text, the occurrences of a word.
          const id = found.hits.find((hit) => hit.path.endsWith("note-1.txt"))!.id
          const document = yield* client.getDocument({ project, id })
          expect(document).toMatchObject({ id, project, contentType: "text/plain", parentDocument: null, rootDocument: id })
          expect(document).not.toHaveProperty("content")
          expect(yield* client.getContent({ project, id, offset: 0, limit: 5 })).toMatchObject({ content: "Zebra", maxOffset: 31 })
          expect(yield* client.getContent({ project, id, offset: 30, limit: 5 }).pipe(Effect.flip)).toBeInstanceOf(InvalidContentRequest)
          expect(yield* client.searchContent({ project, id, query: "zebra" })).toMatchObject({ offsets: [0, 20], count: 2 })
          expect(yield* client.getDocument({ project, id: "missing" }).pipe(Effect.flip)).toBeInstanceOf(DocumentNotFound)

          // Tags.
          expect(yield* client.tagDocument({ project, id, tags: ["animal", "striped"] })).toBe(true)
          expect(yield* client.tagDocument({ project, id, tags: ["animal"] })).toBe(false)
          expect((yield* client.listTags({ project, id })).map((tag) => tag.label).sort()).toEqual(["animal", "striped"])
          yield* client.tagDocuments({ project, ids: found.hits.map((hit) => hit.id), tags: ["zebra"] })
          expect([...(yield* client.taggedDocuments({ project, tags: ["zebra"] }))].sort()).toEqual(found.hits.map((hit) => hit.id).sort())
          expect((yield* client.searchDocuments({ query: "tags:striped", projects: [project] })).hits.map((hit) => hit.id)).toEqual([id])
          expect(yield* client.untagDocument({ project, id, tags: ["striped"] })).toBe(true)
          yield* client.untagDocuments({ project, ids: [id], tags: ["zebra"] })
          expect((yield* client.listTags({ project, id })).map((tag) => tag.label)).toEqual(["animal"])
          expect(yield* client.tagDocument({ project, id, tags: ["a,b"] }).pipe(Effect.flip)).toBeInstanceOf(InvalidMarks)

          // Stars and read marks.
          expect(yield* client.star({ project, ids: [id] })).toBe(1)
          expect(yield* client.star({ project, ids: [id] })).toBe(0)
          expect(yield* client.starredDocuments({ project })).toEqual([id])
          expect(yield* client.unstar({ project, ids: [id] })).toBe(1)
          expect(yield* client.starredDocuments({ project })).toEqual([])
          expect(yield* client.markRead({ project, ids: [id] })).toBe(1)
          expect(yield* client.readBy({ project, users: ["local"] })).toEqual([id])
          expect(yield* client.readers({ project })).toMatchObject({ totalCount: 1, aggregates: [{ item: { id: "local" }, count: 1 }] })
          expect(yield* client.unmarkRead({ project, ids: [id] })).toBe(1)
          expect((yield* client.readers({ project, ids: [id] })).totalCount).toBe(0)
        })
      )

      it.scoped("start scans and index tasks with the legacy options and checks, over MessagePack", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const client = yield* quarryClient("msgpack")
          const scan = yield* client.startScan({ path: server.workDir, options: { maxDepth: 1, defaultProject: "other" } })
          expect(scan).toMatchObject({ kind: "scan", userId: "local", payload: { project: "other", directory: server.workDir } })
          const index = yield* client.startIndex({ options: { defaultProject: "other", parallelism: "3" } })
          expect(index).toMatchObject({ kind: "index", payload: { project: "other", parallelism: 3 } })
          expect(yield* client.startIndex({ options: { parallelism: "many" } }).pipe(Effect.flip)).toBeInstanceOf(InvalidTaskOption)
          expect(yield* client.startScan({ path: "/etc" }).pipe(Effect.flip)).toBeInstanceOf(Forbidden)
          expect(yield* client.scanAndIndex({ path: path.join(server.workDir, "..") }).pipe(Effect.flip)).toBeInstanceOf(Forbidden)
          yield* client.stopAll()
        })
      )
    })
  })
}
