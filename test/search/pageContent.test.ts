import { Statement } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../../src/search/SearchBackend.ts"
import { testDatabase } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { textDocument } from "../helpers/marks.ts"

/**
 * A page of hits reads only the content its highlight analyses (ES's max_analyzed_offset, 1 000 000 characters by
 * default) when the source leaves the content out, and answers as if it had read each document whole.
 */

const project = "long-texts"
const sentence = "Filler words pad this long document out. "
/** 1.3 million characters: a match at the start, another past the analysed part. */
const longText = `The ledger names Ocean Holdings. ${sentence.repeat(30_000)}Ocean Holdings again at the end.`

const document = textDocument("doc-long", "/data/long.txt", longText)

const highlighted = (source: unknown, highlight: Record<string, unknown> = {}) => ({
  _source: source,
  query: { match: { content: "holdings" } },
  highlight: { fields: { content: { fragment_size: 100, number_of_fragments: 3, ...highlight } } }
})

/** The answer's only hit, and the statements the search sent. */
const searchLogged = (body: unknown) =>
  Effect.gen(function* () {
    const backend = yield* SearchBackend
    const statements: Array<string> = []
    const response = yield* backend
      .handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body })
      .pipe(Statement.withTransformer((statement) => Effect.sync(() => (statements.push(statement.compile()[0]), statement))))
    expect(response.status).toBe(200)
    const hit = (
      response.body as {
        hits: { hits: ReadonlyArray<{ highlight?: { content: ReadonlyArray<string> }; _source?: Record<string, unknown> }> }
      }
    ).hits.hits[0]!
    return { hit, statements }
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`page content on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const indexed = Layer.effectDiscard(
      Effect.flatMap(DocumentIndex, (index) => Effect.zipRight(index.createIndex(project), index.bulkIndex(project, [document])))
    )
    const services = indexed.pipe(
      Layer.provideMerge(PostgresDocumentIndex),
      Layer.provideMerge(makePostgresSearchBackend(0)),
      Layer.provideMerge(testDatabase(database)),
      Layer.orDie
    )
    layer(services, { timeout: 60_000 })((it) => {
      it.effect("a highlight without the content in the source reads the analysed characters only, with the same fragments", () =>
        Effect.gen(function* () {
          const partial = yield* searchLogged(highlighted({ excludes: ["content"] }))
          const whole = yield* searchLogged(highlighted(true))
          expect(partial.hit.highlight?.content).toEqual([
            "The ledger names Ocean <em>Holdings</em>. Filler words pad this long document out."
          ])
          expect(partial.hit.highlight).toEqual(whole.hit.highlight)
          expect(partial.hit._source?.content).toBeUndefined()
          expect(whole.hit._source?.content).toBe(longText)
          expect(partial.statements.some((text) => text.includes("substr(r.content, 1, 1065536)"))).toBe(true)
        })
      )

      it.effect("a larger max_analyzed_offset reaches the match at the end; number_of_fragments 0 reads the whole text", () =>
        Effect.gen(function* () {
          const farther = yield* searchLogged(highlighted({ excludes: ["content"] }, { max_analyzed_offset: 2_000_000 }))
          expect(farther.hit.highlight?.content).toEqual([
            "The ledger names Ocean <em>Holdings</em>. Filler words pad this long document out.",
            "Ocean <em>Holdings</em> again at the end."
          ])
          const marked = yield* searchLogged(highlighted({ excludes: ["content"] }, { number_of_fragments: 0 }))
          expect(marked.hit.highlight?.content[0]?.length).toBeGreaterThan(longText.length)
        })
      )
    })
  })
}
