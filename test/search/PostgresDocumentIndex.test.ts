/** PostgresDocumentIndex's writes and reads: documents by id, duplicates, long and unstorable texts, batches, lexicon, generation. */
import { copyFile, mkdir, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option } from "effect"
import { indexedPrefixBytes } from "../../src/search/postgres/TextIndex.ts"
import { generateCorpus } from "../fixtures/corpus.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { testServerLayer } from "../helpers/server.ts"
import { extract, inWorkDir, numberedCopy, templateDocument, withServer } from "./indexHelpers.ts"

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`PostgresDocumentIndex on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("indexes an extracted corpus and reads documents back by id, with and without routing", () =>
        Effect.gen(function* () {
          const dir = yield* inWorkDir("corpus")
          const corpus = yield* Effect.promise(() => generateCorpus(dir))
          const project = "corpus"
          const documents = (yield* Effect.forEach([corpus.utf8, corpus.eml, corpus.zip, corpus.pdf], (file) =>
            extract(project, file)
          )).flat()
          const result = yield* withServer((index) => index.bulkIndex(project, documents))
          expect(result).toEqual({ indexed: documents.length, duplicates: 0 })
          expect(yield* withServer((index) => index.count(project))).toBe(documents.length)
          expect(yield* withServer((index) => index.indexExists(project))).toBe(true)

          const text = documents.find((document) => document.path === corpus.utf8)!
          const stored = Option.getOrThrow(yield* withServer((index) => index.get(project, text.id)))
          expect(stored).toEqual({ ...text, duplicateId: undefined, extractionDate: new Date(text.extractionDate).toISOString() })
          expect(stored.duplicateId).toBeUndefined()

          const attachment = documents.find((document) => document.path === corpus.eml && document.extractionLevel === 1)!
          expect(attachment.rootDocument).not.toBe(attachment.id)
          const routed = yield* withServer((index) => index.get(project, attachment.id, attachment.rootDocument))
          expect(Option.map(routed, (document) => document.content)).toEqual(Option.some(attachment.content))
          expect(Option.map(routed, (document) => document.parentDocument)).toEqual(Option.some(attachment.parentDocument))
          expect(Option.isSome(yield* withServer((index) => index.get(project, attachment.id)))).toBe(true)
          expect(Option.isNone(yield* withServer((index) => index.get(project, attachment.id, attachment.id)))).toBe(true)
          expect(Option.isNone(yield* withServer((index) => index.get(project, "f".repeat(96))))).toBe(true)
          expect(Option.isNone(yield* withServer((index) => index.get("another-project", text.id)))).toBe(true)
        })
      )

      it.effect("records a Duplicate for the same content at another path and nothing for the same path", () =>
        Effect.gen(function* () {
          const project = "duplicates"
          const original = yield* inWorkDir("dup", "original.txt")
          const copy = yield* inWorkDir("dup", "copy.txt")
          yield* Effect.promise(() => mkdir(path.dirname(original), { recursive: true }))
          yield* Effect.promise(() => writeFile(original, "Same words in two files.\n"))
          yield* Effect.promise(() => copyFile(original, copy))
          const [first] = yield* extract(project, original)
          const [second] = yield* extract(project, copy)
          expect(second!.id).toBe(first!.id)

          expect(yield* withServer((index) => index.bulkIndex(project, [first!]))).toEqual({ indexed: 1, duplicates: 0 })
          expect(yield* withServer((index) => index.bulkIndex(project, [first!]))).toEqual({ indexed: 0, duplicates: 0 })
          expect(yield* withServer((index) => index.bulkIndex(project, [second!]))).toEqual({ indexed: 0, duplicates: 1 })
          expect(yield* withServer((index) => index.bulkIndex(project, [second!]))).toEqual({ indexed: 0, duplicates: 0 })
          expect(yield* withServer((index) => index.count(project))).toBe(1)
          const rows = yield* withServer(
            (_, sql) => sql`SELECT id, path, document_id AS "documentId" FROM duplicates WHERE project = ${project}`
          )
          expect(rows).toEqual([{ id: first!.duplicateId, path: copy, documentId: first!.id }])
          expect(first!.duplicateId).not.toBe(first!.id)
          const stored = yield* withServer((index) => index.get(project, first!.id))
          expect(Option.map(stored, (document) => document.path)).toEqual(Option.some(original))
        })
      )

      it.effect("tells copies apart within one batch", () =>
        Effect.gen(function* () {
          const project = "one-batch"
          const a = yield* inWorkDir("batch", "a.txt")
          const b = yield* inWorkDir("batch", "b.txt")
          yield* Effect.promise(() => mkdir(path.dirname(a), { recursive: true }))
          yield* Effect.promise(() => writeFile(a, "Copied within one batch.\n"))
          yield* Effect.promise(() => copyFile(a, b))
          const documents = [...(yield* extract(project, a)), ...(yield* extract(project, b)), ...(yield* extract(project, a))]
          expect(yield* withServer((index) => index.bulkIndex(project, documents))).toEqual({ indexed: 1, duplicates: 1 })
          expect(yield* withServer((index) => index.count(project))).toBe(1)
        })
      )

      it.effect("stores a text longer than the tsvector cap whole and finds words of its indexed prefix", () =>
        Effect.gen(function* () {
          const project = "long"
          const file = yield* inWorkDir("long.txt")
          // Distinct words make the largest tsvector per byte of text: the worst case for the cap.
          const words = Array.from({ length: 400_000 }, (_, n) => `w${n.toString(36)}`)
          const body = `Éléphant ${words.join(" ")} trailingword`
          yield* Effect.promise(() => writeFile(file, body))
          const [document] = yield* extract(project, file)
          expect(document!.content.length).toBeGreaterThan(4 * indexedPrefixBytes)
          expect(yield* withServer((index) => index.bulkIndex(project, [document!]))).toEqual({ indexed: 1, duplicates: 0 })
          const stored = Option.getOrThrow(yield* withServer((index) => index.get(project, document!.id)))
          expect(stored.content).toBe(body)
          expect(stored.contentTextLength).toBe(body.length)
          const matches = (word: string) =>
            withServer(
              (_, sql) =>
                sql<{
                  n: number
                }>`SELECT count(*)::int AS n FROM documents WHERE project = ${project} AND content_tsv @@ to_tsquery('simple', ${word})`
            ).pipe(Effect.map((rows) => rows[0]!.n))
          // Folded like the reference's analyzer: the accented word is found unaccented and lower-cased.
          expect(yield* matches("elephant")).toBe(1)
          expect(yield* matches("w1")).toBe(1)
          expect(yield* matches("trailingword")).toBe(0)
        })
      )

      it.effect(
        database === "postgres"
          ? "compresses long content with LZ4, which a page of long hits decompresses faster than pglz"
          : "keeps long content uncompressed, as PGlite has no LZ4 and its pglz runs in WebAssembly",
        () =>
          Effect.gen(function* () {
            const project = "storage"
            const file = yield* inWorkDir("storage.txt")
            // Long and repetitive enough to be moved out of line and compressed by any method offered the chance.
            yield* Effect.promise(() => writeFile(file, Array.from({ length: 4_000 }, (_, i) => `word${i % 997} sentence ${i}.`).join(" ")))
            const [document] = yield* extract(project, file)
            yield* withServer((index) => index.bulkIndex(project, [document!]))
            const stored = yield* withServer(
              (_, sql) => sql<{ method: string | null }>`
                SELECT pg_column_compression(content) AS method FROM documents WHERE project = ${project} AND id = ${document!.id}`
            )
            expect(stored[0]!.method).toBe(database === "postgres" ? "lz4" : null)
          })
      )

      it.effect("stores NULs and lone UTF-16 halves of an extracted text as U+FFFD, keeping its length", () =>
        Effect.gen(function* () {
          const project = "unstorable"
          const file = yield* inWorkDir("unstorable.txt")
          yield* Effect.promise(() => writeFile(file, "placeholder text"))
          const [extracted] = yield* extract(project, file)
          const content = "before\u0000middle\uD800after \uDC00end \uD83D\uDE00"
          const document = { ...extracted!, content, metadata: { ...extracted!.metadata, tika_metadata_title: "a\u0000b" } }
          expect(yield* withServer((index) => index.bulkIndex(project, [document]))).toEqual({ indexed: 1, duplicates: 0 })
          const stored = Option.getOrThrow(yield* withServer((index) => index.get(project, document.id)))
          expect(stored.content).toBe("before\uFFFDmiddle\uFFFDafter \uFFFDend \uD83D\uDE00")
          expect(stored.content.length).toBe(content.length)
          expect(stored.metadata.tika_metadata_title).toBe("a\uFFFDb")
        })
      )

      it.effect("creates an index once and writes many documents in batches", () =>
        Effect.gen(function* () {
          const project = "batches"
          expect(yield* withServer((index) => index.indexExists(project))).toBe(false)
          expect(yield* withServer((index) => index.createIndex(project))).toBe(true)
          expect(yield* withServer((index) => index.createIndex(project))).toBe(false)
          const template = yield* templateDocument(project, "template.txt", "Template document.\n")
          const many = Array.from({ length: 1_234 }, (_, n) => ({
            ...numberedCopy(template, n),
            path: `/data/folder${n % 7}/file${n}.txt`,
            dirname: `/data/folder${n % 7}`,
            tags: n % 2 === 0 ? ["even"] : []
          }))
          expect(yield* withServer((index) => index.bulkIndex(project, many))).toEqual({ indexed: 1_234, duplicates: 0 })
          expect(yield* withServer((index) => index.count(project))).toBe(1_234)
          const tree = yield* withServer(
            (_, sql) =>
              sql<{ n: number }>`SELECT count(*)::int AS n FROM documents WHERE project = ${project} AND dirname_tree @> ARRAY['/data']`
          )
          expect(tree[0]!.n).toBe(1_234)
          const last = Option.getOrThrow(yield* withServer((index) => index.get(project, many[1_233]!.id)))
          expect(last.tags).toEqual([])
          expect(last.dirname).toBe("/data/folder1")
        })
      )

      it.effect(
        "keeps each word of the content and of the default fields once in the lexicon, with later batches' and tags' new words",
        () =>
          Effect.gen(function* () {
            const project = "lexicon"
            const template = yield* templateDocument(project, "lexicon.txt", "Template.\n")
            const document = (n: number, content: string) => ({
              ...template,
              id: `${n}`.padStart(64, "0"),
              rootDocument: `${n}`.padStart(64, "0"),
              path: `/data/note${n}.txt`,
              content,
              contentLength: content.length,
              contentTextLength: content.length
            })
            yield* withServer((index) => index.bulkIndex(project, [document(1, "Alpha beta beta"), document(2, "beta gamma alpha")]))
            yield* withServer((index) => index.bulkIndex(project, [document(3, "gamma delta alpha")]))
            yield* withServer((index) => index.addTags(project, [document(1, "").id], ["Epsilon"]))
            const lexicon = (field: "c" | "m") =>
              withServer(
                (_, sql) =>
                  sql<{ word: string }>`SELECT word FROM index_words WHERE project = ${project} AND field = ${field} ORDER BY word`
              ).pipe(Effect.map((rows) => rows.map((row) => row.word)))
            expect(yield* lexicon("c")).toEqual(["alpha", "beta", "delta", "gamma"])
            expect(yield* lexicon("m")).toEqual(["data", "epsilon", "lexicon.txt", "note1", "note2", "note3", "txt"])
          })
      )
    })
  })
}

describe.skipIf(!postgresAvailable)(
  `an index write and its generation on postgres${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    layer(testServerLayer({ database: "postgres" }))((it) => {
      const generationOf = (sql: SqlClient.SqlClient, project: string) =>
        Effect.map(
          sql<{ generation: string }>`SELECT generation::text AS generation FROM document_indices WHERE project = ${project}`,
          (rows) => rows[0]!.generation
        )

      it.effect(
        "renews the generation once, at its end, so that other writers of the project do not wait for the index transaction in progress",
        () =>
          Effect.gen(function* () {
            const project = "held"
            const template = yield* templateDocument(project, "held.txt", "A held document.\n")
            const numbered = (n: number) => ({ ...numberedCopy(template, n), path: `/held/${n}.txt` })
            yield* withServer((index) => index.bulkIndex(project, [numbered(1), numbered(2)]))
            const before = yield* withServer((_, sql) => generationOf(sql, project))

            // In a transaction as the index task's, after the index write: the generation is new, and what the same
            // transaction writes next renews it again through the triggers.
            const [written, afterTag] = yield* withServer((index, sql) =>
              sql.withTransaction(
                Effect.gen(function* () {
                  yield* index.bulkIndex(project, [numbered(3)])
                  const written = yield* generationOf(sql, project)
                  yield* sql`UPDATE documents SET tags = ARRAY['next'] WHERE project = ${project} AND id = ${numbered(1).id}`
                  return [written, yield* generationOf(sql, project)] as const
                })
              )
            )
            // One number each: the write's last statement draws it, its insert triggers none. The tag's trigger, one.
            expect([BigInt(written) - BigInt(before), BigInt(afterTag) - BigInt(written)]).toEqual([1n, 1n])

            // While a transaction that renews the generation itself writes documents, the project's row is not locked:
            // a tag written on another connection meanwhile does not wait (it failed on its lock timeout before).
            const started = yield* Deferred.make<void>()
            const release = yield* Deferred.make<void>()
            const holding = yield* Effect.fork(
              withServer((_, sql) =>
                sql.withTransaction(
                  Effect.gen(function* () {
                    yield* sql`SELECT set_config('quarry.generation_renewed_by_caller', 'on', true)`
                    yield* sql`UPDATE documents SET tags = ARRAY['held'] WHERE project = ${project} AND id = ${numbered(2).id}`
                    yield* Deferred.succeed(started, undefined)
                    yield* Deferred.await(release)
                  })
                )
              )
            )
            yield* Deferred.await(started)
            const tagged = yield* withServer((_, sql) =>
              sql.withTransaction(
                Effect.zipRight(
                  sql`SET LOCAL lock_timeout = '2s'`,
                  Effect.zipRight(
                    sql`UPDATE documents SET tags = ARRAY['meanwhile'] WHERE project = ${project} AND id = ${numbered(3).id}`,
                    generationOf(sql, project)
                  )
                )
              )
            ).pipe(Effect.either)
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(holding)
            expect(tagged._tag).toBe("Right")
            expect(tagged._tag === "Right" && tagged.right).not.toBe(afterTag)
          })
      )
    })
  }
)
