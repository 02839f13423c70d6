import * as fs from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Engine } from "../../../src/engine/Engine.ts"
import { IndexJob } from "../../../src/engine/kinds/IndexJob.ts"
import { ScanJob } from "../../../src/engine/kinds/ScanJob.ts"
import { documentId } from "../../../src/extract/DocumentId.ts"
import { Extractor } from "../../../src/extract/Extractor.ts"
import { DocumentIndex } from "../../../src/search/DocumentIndex.ts"
import { indexedDocuments } from "../../../src/search/indexedDocuments.ts"
import { PostgresDocumentIndex } from "../../../src/search/postgres/PostgresDocumentIndex.ts"
import { files, generateCorpus, generateLargeCorpus } from "../../fixtures/corpus.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { clearTasks, eventually, readTask, testDatabase } from "../helpers.ts"
import {
  defaultScanOptions,
  finished,
  indexAll,
  indexPayload,
  queuedPaths,
  remaining,
  scan,
  startIngestionEngine,
  tempDir
} from "./helpers.ts"

const documentKeys = (Object.keys(files) as Array<keyof typeof files>).filter((key) => key !== "hidden" && key !== "osFile")

let projects = 0
const newProject = () => `index-${++projects}`

const documentIndex = Effect.provide(DocumentIndex, PostgresDocumentIndex)

/** What the extractor makes of each file on its own: the documents the index must hold afterwards. */
const expectedDocuments = (paths: ReadonlyArray<string>, project: string) =>
  Effect.forEach(paths, (file) =>
    Effect.flatMap(Extractor, (extractor) => extractor.extract(file, { project, ocr: false, maxContentLength: -1 }))
  ).pipe(
    Effect.map((trees) => trees.flatMap(indexedDocuments)),
    Effect.provide(Extractor.Default),
    Effect.orDie
  )

const largeCorpus = (count: number) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const paths = yield* Effect.promise(() => generateLargeCorpus(dir, count))
    return { dir, paths }
  })

/** Whether each file's top-level document is in the index. */
const indexedRoots = (paths: ReadonlyArray<string>, project: string) =>
  Effect.gen(function* () {
    const index = yield* documentIndex
    return yield* Effect.forEach(paths, (file) =>
      Effect.promise(() => fs.readFile(file)).pipe(
        Effect.flatMap((bytes) => index.get(project, documentId(project, bytes))),
        Effect.map(Option.isSome)
      )
    )
  }).pipe(Effect.orDie)

/** Every file is either indexed (with all its documents, written in one transaction) or still queued, never both. */
const expectConsistent = (paths: ReadonlyArray<string>, project: string) =>
  Effect.gen(function* () {
    const queued = new Set(yield* queuedPaths(project))
    const indexed = yield* indexedRoots(paths, project)
    paths.forEach((file, position) =>
      expect({ file, indexed: indexed[position], queued: queued.has(file) }).toEqual({
        file,
        indexed: !queued.has(file),
        queued: queued.has(file)
      })
    )
    expect(yield* Effect.flatMap(documentIndex, (index) => index.count(project)).pipe(Effect.orDie)).toBe(paths.length - queued.size)
    return queued.size
  })

/**
 * Words of the project's documents missing from the lexicon that fuzzy, wildcard and regexp terms expand against, and
 * documents still listed for their words (the embedded database adds them after each write, migration 0160).
 */
const lexiconGaps = (project: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [missing] = yield* sql<{ words: number; pending: number }>`
      SELECT
        (SELECT count(*)::int FROM documents d, unnest(tsvector_to_array(d.content_tsv)) AS l (word)
          WHERE d.project = ${project}
            AND NOT EXISTS (SELECT 1 FROM index_words k WHERE k.project = d.project AND k.field = 'c' AND k.word = l.word COLLATE "C")) AS words,
        (SELECT count(*)::int FROM index_words_pending WHERE project = ${project}) AS pending`
    return missing
  }).pipe(Effect.orDie)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Index task on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 180_000, excludeTestServices: true })((it) => {
      it.scoped("indexes every file and embedded document with its routing; indexing again changes no count", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const dir = yield* tempDir
          const written = yield* Effect.promise(() => generateCorpus(dir))
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          const index = yield* documentIndex
          const project = newProject()
          expect((yield* scan(engine, dir, project)).result).toBe(documentKeys.length)
          const task = yield* indexAll(engine, project)
          expect(task).toMatchObject({ state: "DONE", result: documentKeys.length, progress: 1 })
          expect(task.name).toMatch(/^org\.icij\.datashare\.tasks\.IndexTask@/)
          expect(yield* remaining(project)).toBe(0)
          expect(yield* lexiconGaps(project)).toEqual({ words: 0, pending: 0 })

          const expected = yield* expectedDocuments(
            documentKeys.map((key) => written[key]),
            project
          )
          const embedded = expected.filter((document) => document.parentDocument !== null)
          expect(embedded.length).toBeGreaterThan(5)
          for (const document of expected) {
            const stored = yield* index.get(project, document.id, document.rootDocument)
            expect(Option.getOrUndefined(stored), document.path).toMatchObject({
              path: document.path,
              parentDocument: document.parentDocument,
              rootDocument: document.rootDocument,
              extractionLevel: document.extractionLevel,
              contentType: document.contentType,
              content: document.content,
              // Documents that could not be extracted (the broken files of the corpus) are recorded as failed.
              status: document.extractionError === undefined ? "INDEXED" : "FAILED",
              nerTags: []
            })
          }
          // Routing is checked: an embedded document is not found under another root.
          expect(Option.isNone(yield* index.get(project, embedded[0]!.id, expected[0]!.id))).toBe(true)
          const corrupt = expected.find((document) => document.path === written.corruptPdf)
          expect(Option.getOrUndefined(yield* index.get(project, corrupt!.id))).toMatchObject({
            status: "FAILED",
            extractionError: expect.any(String)
          })
          const count = yield* index.count(project)
          expect(count).toBe(new Set(expected.map((document) => document.id)).size)

          yield* scan(engine, dir, project)
          expect((yield* indexAll(engine, project)).result).toBe(documentKeys.length)
          expect(yield* index.count(project)).toBe(count)
        })
      )

      it.scoped("an index task submitted with a scan waits for it and takes every file it queues", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const { dir, paths } = yield* largeCorpus(300)
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          const project = newProject()
          const scanTask = yield* engine.submit(ScanJob, { directory: dir, project, options: defaultScanOptions }, { userId: "local" })
          const indexTask = yield* engine.submit(IndexJob, indexPayload(project), { userId: "local" })
          expect(yield* finished(indexTask.id, "120 seconds")).toMatchObject({ state: "DONE", result: paths.length })
          expect((yield* readTask(scanTask.id)).result).toBe(paths.length)
          expect(yield* expectConsistent(paths, project)).toBe(0)
        })
      )

      it.scoped("a stopped index leaves every file indexed or queued, and the next index task finishes the rest", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const { dir, paths } = yield* largeCorpus(1_000)
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          const project = newProject()
          yield* scan(engine, dir, project)
          const task = yield* engine.submit(IndexJob, indexPayload(project), { userId: "local" })
          const running = yield* eventually(readTask(task.id), (t) => t.progress !== null && t.progress > 0.05, "60 seconds")
          expect(yield* engine.stop(running)).toBe(true)
          expect((yield* readTask(task.id)).state).toBe("CANCELLED")
          const left = yield* expectConsistent(paths, project)
          expect(left).toBeGreaterThan(0)
          expect(left).toBeLessThan(paths.length)

          expect(yield* indexAll(engine, project)).toMatchObject({ state: "DONE", result: left })
          expect(yield* expectConsistent(paths, project)).toBe(0)
          expect(yield* lexiconGaps(project)).toEqual({ words: 0, pending: 0 })
        })
      )

      it.scoped("an index task released at shutdown resumes on the next engine and counts every file once", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const { dir, paths } = yield* largeCorpus(600)
          const project = newProject()
          const task = yield* Effect.scoped(
            Effect.gen(function* () {
              const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
              yield* scan(engine, dir, project)
              const task = yield* engine.submit(IndexJob, indexPayload(project), { userId: "local" })
              yield* eventually(readTask(task.id), (t) => t.progress !== null && t.progress > 0.05, "60 seconds")
              return task
            })
          )
          expect((yield* readTask(task.id)).state).toBe("QUEUED")
          yield* expectConsistent(paths, project)
          yield* startIngestionEngine()
          expect(yield* finished(task.id, "120 seconds")).toMatchObject({ state: "DONE", result: paths.length, attempts: 2 })
          expect(yield* expectConsistent(paths, project)).toBe(0)
          expect(yield* lexiconGaps(project)).toEqual({ words: 0, pending: 0 })
        })
      )

      it.scoped("named queues are filled and drained apart; the filter option queues only files not indexed yet", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const dir = yield* tempDir
          const write = (name: string, text: string) => Effect.promise(() => fs.writeFile(path.join(dir, name), text))
          yield* write("first.txt", "first file\n")
          yield* write("second.txt", "second file\n")
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          const project = newProject()
          const scanInto = (queueName: string, skipIndexed = false) =>
            engine
              .submit(ScanJob, { directory: dir, project, queueName, skipIndexed, options: defaultScanOptions }, { userId: "local" })
              .pipe(Effect.flatMap((task) => finished(task.id)))
          expect((yield* scanInto("other:queue")).result).toBe(2)
          // An index of the default queue finds nothing to do: the files wait in the other queue.
          expect(yield* indexAll(engine, project)).toMatchObject({ state: "DONE", result: 0 })
          expect(yield* remaining(project)).toBe(2)
          const other = yield* engine.submit(IndexJob, { ...indexPayload(project), queueName: "other:queue" }, { userId: "local" })
          expect(yield* finished(other.id)).toMatchObject({ state: "DONE", result: 2 })
          expect(yield* remaining(project)).toBe(0)

          yield* write("third.txt", "third file\n")
          expect((yield* scanInto("extract:queue", true)).result).toBe(1)
          expect(yield* queuedPaths(project)).toEqual([path.join(dir, "third.txt")])
          // Without the filter every file is queued again; the one still queued counts once.
          expect((yield* scanInto("extract:queue", false)).result).toBe(3)
          expect(yield* remaining(project)).toBe(3)
        })
      )

      it.scoped("skips a file removed after the scan and counts it as taken", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const dir = yield* tempDir
          const kept = path.join(dir, "kept.txt")
          const gone = path.join(dir, "gone.txt")
          yield* Effect.promise(() => Promise.all([fs.writeFile(kept, "kept\n"), fs.writeFile(gone, "gone\n")]))
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          const project = newProject()
          yield* scan(engine, dir, project)
          yield* Effect.promise(() => fs.rm(gone))
          expect(yield* indexAll(engine, project)).toMatchObject({ state: "DONE", result: 2 })
          expect(yield* Effect.flatMap(documentIndex, (index) => index.count(project)).pipe(Effect.orDie)).toBe(1)
          expect(yield* remaining(project)).toBe(0)
        })
      )
    })
  })
}
