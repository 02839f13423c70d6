/** The corpus of the bounded-search tests, shared by the searches' own limits, their statements and their admission. */
import { Effect, Layer } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { runMigrations } from "../../src/db/Migrator.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { type BackendRequest, SearchBackend } from "../../src/search/SearchBackend.ts"
import { dataSourceUrlFor, type DatabaseKind } from "../helpers/databases.ts"
import { textDocument } from "../helpers/marks.ts"

export const project = "bounded"

/** Words of two or three syllables, so that many words are one or two edits apart. */
const syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po"]
export const word = (seed: number) => {
  const count = 2 + (seed % 2)
  return Array.from({ length: count }, (_, index) => syllables[Math.floor(seed / 10 ** index) % syllables.length]!).join("")
}

export const makeDocument = (id: string, content: string, title: string): IndexedDocument => ({
  ...textDocument(id, `/data/${id}.txt`, content),
  metadata: { tika_metadata_dc_title: title },
  extractionDate: "2024-01-10T12:00:00.000Z"
})

export const corpus: ReadonlyArray<IndexedDocument> = [
  ...Array.from({ length: 150 }, (_, index) =>
    makeDocument(
      `doc-${index}`,
      Array.from({ length: 20 }, (_, position) => word((index * 7919 + position * 104_729) % 1000)).join(" ") + " well-known 3.14",
      `${word(index * 31)} ${word(index * 17 + 3)}`
    )
  ),
  // A document for each of 76 words within one edit of "quarry": more than the 50 a fuzzy term keeps by default.
  ...[...new Set([..."abcdefghijklmnopqrstuvwxyz"].flatMap((letter) => [`quarr${letter}`, `quar${letter}y`, `qu${letter}rry`]))].map(
    (variant) => makeDocument(`doc-${variant}`, variant, "variant")
  ),
  // 1 100 words of one pattern: more than max_clause_count.
  makeDocument("doc-many", Array.from({ length: 1_100 }, (_, index) => `zz${String(index).padStart(4, "0")}`).join(" "), "many")
]

export const send = (body: unknown, path = `${project}/_search`, extra: Partial<BackendRequest> = {}) =>
  Effect.flatMap(SearchBackend, (backend) =>
    backend.handle({ method: "POST", path, query: new URLSearchParams(), body, interactive: true, ...extra })
  )

/** A migrated database of `kind` holding the corpus, with the engine's backend (its default admission) and index. */
export const corpusLayer = (kind: DatabaseKind) =>
  Layer.unwrapScoped(
    Effect.map(dataSourceUrlFor(kind), (url) => {
      const database = Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(url)))
      const services = Layer.mergeAll(makePostgresSearchBackend(1024 * 1024), PostgresDocumentIndex).pipe(Layer.provideMerge(database))
      const load = Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, corpus))
      return Layer.effectDiscard(load).pipe(Layer.provideMerge(services), Layer.orDie)
    })
  )
