import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { testDatabase } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { textDocument } from "../helpers/marks.ts"
import { distinctWords } from "../helpers/words.ts"

/**
 * The columns a search reads for every match (the default-field tsvector, the path, the path tree, tags) stay in the
 * row of a long document, whose word-count filter fills most of a row: reading them fetches no TOAST block.
 */

const project = "row-storage"
/** 1,000 distinct words, each twice: a word-count filter about as wide as it gets (1,673 to 1,800 bytes at most). */
const words = distinctWords(1_000, "w")
const longDocument = {
  ...textDocument(
    "doc-long",
    "/data/ledgers/ocean holdings/annual report of the offshore companies.txt",
    `${words.join(" ")} ${words.join(" ")}`
  ),
  tags: ["offshore companies ledger", "annual report reviewed by the desk"],
  nerTags: ["PERSON", "ORGANIZATION", "LOCATION"]
}

/**
 * The TOAST blocks `read` fetched, and what it answered: the backend's count of the transaction before and after it
 * (a count not yet reported to the statistics, which a server keeps for a while after the transaction that made it).
 */
const toastBlocksReading = <A>(read: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const counted = sql<{ blocks: number }>`
      SELECT pg_stat_get_xact_blocks_fetched(reltoastrelid)::int AS blocks FROM pg_class WHERE relname = 'documents'`
    const fetched = Effect.map(counted, (rows) => rows[0]!.blocks)
    return sql.withTransaction(
      Effect.gen(function* () {
        const before = yield* fetched
        const answer = yield* read
        return { answer, blocks: (yield* fetched) - before }
      })
    )
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`a long document's row on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const indexed = Layer.effectDiscard(
      Effect.flatMap(DocumentIndex, (index) => Effect.zipRight(index.createIndex(project), index.bulkIndex(project, [longDocument])))
    )
    const services = indexed.pipe(Layer.provideMerge(PostgresDocumentIndex), Layer.provideMerge(testDatabase(database)), Layer.orDie)
    layer(services, { timeout: 60_000 })((it) => {
      it.effect("holds the columns a search tests on each match, and reads only the content from TOAST", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const searched = yield* toastBlocksReading(
            sql<{
              metadata: boolean
              tree: ReadonlyArray<string>
              path: string
              tags: ReadonlyArray<string>
              nerTags: ReadonlyArray<string>
              filter: number
            }>`
              SELECT metadata_tsv @@ 'ocean'::tsquery AS metadata, dirname_tree AS tree, path, tags, ner_tags AS "nerTags",
                octet_length(content_word_counts) AS filter
              FROM documents WHERE project = ${project} AND id = 'doc-long'`
          )
          expect(searched.answer).toEqual([
            {
              metadata: true,
              tree: ["/data", "/data/ledgers", "/data/ledgers/ocean holdings"],
              path: longDocument.path,
              tags: longDocument.tags,
              nerTags: longDocument.nerTags,
              filter: expect.any(Number)
            }
          ])
          expect(searched.answer[0]!.filter).toBeGreaterThan(1_600)
          expect(searched.blocks).toBe(0)
          // The count works here: the content, a page's read, comes from TOAST.
          const paged = yield* toastBlocksReading(sql`SELECT length(content) FROM documents WHERE project = ${project} AND id = 'doc-long'`)
          expect(paged.blocks).toBeGreaterThan(0)
        })
      )
    })
  })
}
