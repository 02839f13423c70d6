import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { testDatabase } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { textDocument } from "../helpers/marks.ts"
import { distinctWords } from "../helpers/words.ts"
import { search } from "./dsl/corpus.ts"

/**
 * A document's word-count filter (migrations 0180 and 0220) has 16 bits a key up to its largest size, which depends on
 * its number of keys: a key's bits are its hash modulo the filter's length, and with one length for every long
 * document they fell on the same places in all of them.
 */

const project = "word-count-filters"
/** `count` distinct words, each twice: as many keys (tier 1 only). */
const repeatedWords = (count: number) => {
  const words = distinctWords(count, "w")
  return `${words.join(" ")} ${words.join(" ")}`
}
const keyCounts = [500, 950, 951, 1_000, 1_500] as const
const documents = keyCounts.map((count) => textDocument(`keys-${count}`, `/data/keys-${count}.txt`, `${repeatedWords(count)} shared`))

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`word-count filters on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const indexed = Layer.effectDiscard(Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)))
    const services = indexed.pipe(Layer.provideMerge(PostgresDocumentIndex), Layer.provideMerge(testDatabase(database)), Layer.orDie)
    layer(Layer.provideMerge(makePostgresSearchBackend(0), services), { timeout: 60_000 })((it) => {
      it.effect("a long document's filter length depends on its number of keys, a short one's is 2 bytes a key", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ id: string; bytes: number }>`
            SELECT id, length(content_word_counts) / 8 AS bytes FROM documents WHERE project = ${project} ORDER BY id`
          const bytes = new Map(rows.map((row) => [row.id, row.bytes]))
          // 2 bytes a key and one more, up to 1,800 less the number of keys modulo 128.
          expect(keyCounts.map((count) => bytes.get(`keys-${count}`))).toEqual([1_001, 1_746, 1_745, 1_696, 1_708])
          // The filters still rank: a word held twice ranks above the word held once, in every document.
          const twice = yield* search({ query: { match: { content: "wbc" } } }, { path: `${project}/_search` })
          const once = yield* search({ query: { match: { content: "shared" } } }, { path: `${project}/_search` })
          expect(twice.hits.hits).toHaveLength(keyCounts.length)
          expect(once.hits.hits).toHaveLength(keyCounts.length)
          const highestOnce = Math.max(...once.hits.hits.map((hit) => hit._score!))
          for (const hit of twice.hits.hits) expect(hit._score, hit._id).toBeGreaterThan(highestOnce)
        })
      )
    })
  })
}
