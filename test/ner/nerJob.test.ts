import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Engine } from "../../src/engine/Engine.ts"
import { NerJob } from "../../src/engine/kinds/NerJob.ts"
import { NerJobLive } from "../../src/engine/kinds/NerJobLive.ts"
import { compromisePipeline } from "../../src/ner/CompromisePipeline.ts"
import { NerPool } from "../../src/ner/NerPool.ts"
import { annotate } from "../../src/ner/Annotate.ts"
import { entitiesOf } from "../../src/ner/Pipeline.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { clearTasks, eventually, readTask, startEngine, testDatabase } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"

const project = "ner-job"
const documentCount = 800

const documents: ReadonlyArray<IndexedDocument> = Array.from({ length: documentCount }, (_, i) => {
  const id = i.toString(16).padStart(96, "0")
  const content = `Report ${i}: John Smith met Maria Garcia of Goldman Sachs in Berlin, then flew to Toronto.`
  return {
    id,
    path: `/ner/${i}.txt`,
    dirname: "/ner",
    content,
    contentLength: content.length,
    contentTextLength: content.length,
    contentType: "text/plain",
    contentEncoding: "UTF-8",
    language: "ENGLISH",
    metadata: {},
    extractionDate: "2026-11-24T01:00:00.000Z",
    extractionLevel: 0,
    parentDocument: null,
    rootDocument: id,
    tags: [],
    nerTags: [],
    status: "INDEXED"
  }
})

/** Entities stored per document, and the documents marked with CORENLP. */
const stored = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const entities = yield* sql<{ documentId: string; count: number }>`
    SELECT document_id AS "documentId", count(*)::int AS count FROM named_entities WHERE project = ${project} GROUP BY document_id`
  const marked = yield* sql<{
    id: string
  }>`SELECT id FROM documents WHERE project = ${project} AND 'CORENLP' = ANY(ner_tags) AND status = 'DONE'`
  return { entities: new Map(entities.map((row) => [row.documentId, row.count])), marked: new Set(marked.map((row) => row.id)) }
}).pipe(Effect.orDie)

const expected = entitiesOf(annotate(compromisePipeline, documents[0]!.content), documents[0]!, "CORENLP").length

/** Every document is either marked with all its entities written, or unmarked with none: never half done. */
const expectConsistent = Effect.gen(function* () {
  const { entities, marked } = yield* stored
  for (const document of documents)
    expect([document.id, entities.get(document.id) ?? 0]).toStrictEqual([document.id, marked.has(document.id) ? expected : 0])
  return marked.size
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`findNames task on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(Layer.merge(Layer.provideMerge(PostgresDocumentIndex, testDatabase(database)), NerPool.Default), {
      timeout: 180_000,
      excludeTestServices: true
    })((it) => {
      it.scoped("a stopped findNames leaves each document done or untouched, and the next task finishes the rest", () =>
        Effect.gen(function* () {
          yield* clearTasks
          expect(expected).toBeGreaterThanOrEqual(4)
          yield* Effect.orDie(Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)))
          const engine = yield* Effect.provide(Engine, yield* startEngine({}, NerJobLive))
          const task = yield* engine.submit(NerJob, { project, pipeline: "CORENLP" }, { userId: "local" })
          // Stopped as soon as a first batch is committed, while the next ones are being annotated.
          yield* eventually(stored, (state) => state.marked.size > 0, "60 seconds")
          expect(yield* engine.stop(yield* readTask(task.id))).toBe(true)
          expect((yield* readTask(task.id)).state).toBe("CANCELLED")
          const done = yield* expectConsistent
          expect(done).toBeGreaterThan(0)
          expect(done).toBeLessThan(documentCount)

          const next = yield* engine.submit(NerJob, { project, pipeline: "CORENLP" }, { userId: "local" })
          const finished = yield* eventually(readTask(next.id), (t) => t.state !== "QUEUED" && t.state !== "RUNNING", "120 seconds")
          expect(finished).toMatchObject({ state: "DONE", result: documentCount - done, progress: 1 })
          expect(yield* expectConsistent).toBe(documentCount)
        })
      )

      it.scoped("a document in a language the pipeline does not read is marked with no entities, and the task ends", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const other = "ner-languages"
          const english = { ...documents[0]!, id: "e".repeat(96), rootDocument: "e".repeat(96) }
          const french = { ...english, id: "f".repeat(96), rootDocument: "f".repeat(96), language: "FRENCH" }
          yield* Effect.orDie(Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(other, [english, french])))
          const engine = yield* Effect.provide(Engine, yield* startEngine({}, NerJobLive))
          const task = yield* engine.submit(NerJob, { project: other, pipeline: "CORENLP" }, { userId: "local" })
          const finished = yield* eventually(readTask(task.id), (t) => t.state !== "QUEUED" && t.state !== "RUNNING", "60 seconds")
          expect(finished).toMatchObject({ state: "DONE", result: 2 })
          const rows = yield* Effect.orDie(
            Effect.flatMap(
              SqlClient.SqlClient,
              (sql) => sql<{ id: string; nerTags: ReadonlyArray<string>; entities: number }>`
            SELECT d.id, d.ner_tags AS "nerTags", (SELECT count(*)::int FROM named_entities n WHERE n.project = d.project AND n.document_id = d.id) AS entities
            FROM documents d WHERE d.project = ${other} ORDER BY d.id`
            )
          )
          expect(rows).toStrictEqual([
            { id: english.id, nerTags: ["CORENLP"], entities: expected },
            { id: french.id, nerTags: ["CORENLP"], entities: 0 }
          ])
        })
      )
    })
  })
}
