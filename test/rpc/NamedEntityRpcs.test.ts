import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexFiles, writeText } from "../helpers/indexing.ts"
import { testServerLayer } from "../helpers/server.ts"
import { addUser } from "../helpers/users.ts"
import { quarryClient } from "./client.ts"

const project = "local-datashare"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Named entity RPCs on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("run findNames as a task, then stream a document's entities page by page", () =>
        Effect.gen(function* () {
          const file = yield* writeText("mail.txt", "Write to alice@example.org, then to bob@example.org, and again to alice@example.org.")
          const [document] = yield* indexFiles(project, [file])
          const client = yield* quarryClient()
          const tasks = yield* quarryClient()
          expect(yield* client.nerPipelines()).toEqual(expect.arrayContaining(["EMAIL", "CORENLP"]))

          const task = yield* client.findNames({ pipeline: "EMAIL" })
          expect(task).toMatchObject({ kind: "findNames", userId: "local", payload: { project, pipeline: "EMAIL" } })
          const updates = yield* Stream.runCollect(tasks.watchTasks({ id: task.id }))
          expect(Chunk.toReadonlyArray(updates).at(-1)).toMatchObject({ state: "DONE", result: 1 })

          const entities = Chunk.toReadonlyArray(
            yield* Stream.runCollect(client.documentNamedEntities({ project, documentId: document!.id, pageSize: 1 }))
          )
          expect(entities.map((entity) => [entity.mention, entity.offsets.length, entity.category])).toEqual([
            ["alice@example.org", 2, "EMAIL"],
            ["bob@example.org", 1, "EMAIL"]
          ])
          expect(entities[0]).toMatchObject({ extractor: "EMAIL", isHidden: false, mentionNorm: "alice@example.org" })
          expect(entities[0]!.id).toMatch(/^[0-9a-f]{96}$/)
          const people = yield* Stream.runCollect(
            client.documentNamedEntities({ project, documentId: document!.id, categories: ["PERSON"] })
          )
          expect(Chunk.size(people)).toBe(0)
          expect(Chunk.size(yield* Stream.runCollect(client.documentNamedEntities({ project, documentId: "missing" })))).toBe(0)

          expect(yield* client.getNamedEntity({ project, id: entities[0]!.id })).toEqual(entities[0])
          expect(yield* client.getNamedEntity({ project, id: entities[0]!.id, routing: "another-root" }).pipe(Effect.flip)).toMatchObject({
            _tag: "NamedEntityNotFound"
          })
          expect(yield* client.hideNamedEntities({ project, mentionNorm: "bob@example.org" })).toBe(1)
          const shown = yield* Stream.runCollect(client.documentNamedEntities({ project, documentId: document!.id }))
          expect(Chunk.toReadonlyArray(shown).map((entity) => entity.mention)).toEqual(["alice@example.org"])
          const all = yield* Stream.runCollect(client.documentNamedEntities({ project, documentId: document!.id, includeHidden: true }))
          expect(Chunk.toReadonlyArray(all).map((entity) => [entity.mention, entity.isHidden])).toEqual([
            ["alice@example.org", false],
            ["bob@example.org", true]
          ])

          expect(yield* client.findNames({ pipeline: "NOPE" }).pipe(Effect.flip)).toMatchObject({ _tag: "UnknownPipeline", name: "NOPE" })
        })
      )
    })
  })
}

describe("Named entity RPCs in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("start tasks and read entities only in the caller's projects", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw-a", { projects: ["alpha"] })
        const alice = yield* quarryClient("ndjson", { _tag: "Basic", user: "alice", password: "pw-a" })
        expect(yield* alice.findNames({ pipeline: "EMAIL", project: "beta" }).pipe(Effect.flip)).toMatchObject({
          _tag: "ProjectForbidden",
          project: "beta"
        })
        expect(yield* alice.documentNamedEntities({ project: "beta", documentId: "any" }).pipe(Stream.runDrain, Effect.flip)).toMatchObject(
          { _tag: "ProjectForbidden", project: "beta" }
        )
        expect(yield* alice.getNamedEntity({ project: "beta", id: "any" }).pipe(Effect.flip)).toMatchObject({ _tag: "ProjectForbidden" })
        expect(yield* alice.hideNamedEntities({ project: "beta", mentionNorm: "any" }).pipe(Effect.flip)).toMatchObject({
          _tag: "ProjectForbidden"
        })
        expect(yield* alice.findNames({ pipeline: "EMAIL", project: "alpha" })).toMatchObject({
          userId: "alice",
          payload: { project: "alpha" }
        })
        expect(Chunk.size(yield* Stream.runCollect(alice.documentNamedEntities({ project: "alpha", documentId: "any" })))).toBe(0)
      })
    )
  })
})
