import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { databaseLayer } from "../../../src/db/Database.ts"
import { runMigrations } from "../../../src/db/Migrator.ts"
import { DocumentIndex, type IndexedDocument } from "../../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../../src/search/postgres/PostgresDocumentIndex.ts"
import { PostgresSearchBackend } from "../../../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../../../src/search/SearchBackend.ts"
import { dataSourceUrlFor, type DatabaseKind } from "../../helpers/databases.ts"

/**
 * A small fixture corpus for the search engine: two projects, documents at several depths and dates, an email
 * with an attachment, and named entities inserted the way a NER pipeline will write them.
 */

export const document = (fields: Partial<IndexedDocument> & Pick<IndexedDocument, "id" | "path" | "content">): IndexedDocument => ({
  dirname: fields.path.slice(0, fields.path.lastIndexOf("/")),
  contentLength: fields.content.length,
  contentTextLength: fields.content.length,
  contentType: "text/plain",
  contentEncoding: "UTF-8",
  language: "ENGLISH",
  metadata: {},
  extractionDate: "2024-01-10T12:00:00.000Z",
  extractionLevel: 0,
  parentDocument: null,
  rootDocument: fields.id,
  tags: [],
  nerTags: [],
  status: "INDEXED",
  ...fields
})

export const project = "corpus-a"
export const otherProject = "corpus-b"

export const documents: ReadonlyArray<IndexedDocument> = [
  document({
    id: "doc-fox",
    path: "/data/docs/fox.txt",
    content: "The quick brown fox jumps over the lazy dog. Foxes are clever animals.",
    contentLength: 120,
    tags: ["Urgent", "Review"],
    metadata: {
      tika_metadata_dcterms_created: "2020-03-15T10:00:00Z",
      tika_metadata_dc_creator: "Alice Martin",
      tika_metadata_resourcename: "fox.txt"
    }
  }),
  document({
    id: "doc-report",
    path: "/data/docs/report.pdf",
    content: "Annual financial report. The café served crème brûlée to the board.",
    contentType: "application/pdf",
    contentLength: 2_000,
    language: "FRENCH",
    extractionDate: "2024-02-05T08:30:00.000Z",
    tags: ["urgent"],
    metadata: {
      tika_metadata_dcterms_created: "2021-07-01T00:00:00Z",
      tika_metadata_dc_creator: "Bob Stone",
      tika_metadata_resourcename: "report.pdf"
    }
  }),
  document({
    id: "doc-mail",
    path: "/data/mail/2023/message.eml",
    content: "Meeting about the quick merger with John Doe. Please review the attached file.",
    contentType: "message/rfc822",
    contentLength: 500,
    extractionDate: "2024-02-20T16:00:00.000Z",
    metadata: { tika_metadata_dcterms_created: "2021-11-30T09:00:00Z", tika_metadata_dc_title: "Merger meeting" }
  }),
  document({
    id: "doc-attachment",
    path: "/data/mail/2023/message.eml",
    content: "Attachment text: draft contract for the merger. Confidential.",
    contentType: "application/pdf",
    contentLength: 300,
    extractionDate: "2024-02-20T16:00:00.000Z",
    extractionLevel: 1,
    parentDocument: "doc-mail",
    rootDocument: "doc-mail"
  }),
  document({
    id: "doc-notes",
    path: "/data/docs/sub/notes.txt",
    content: "Notes: lazy afternoon, brown bears and blue whales.",
    contentLength: 50,
    extractionDate: "2023-12-31T23:00:00.000Z"
  })
]

export const otherDocuments: ReadonlyArray<IndexedDocument> = [
  document({
    id: "doc-other",
    path: "/other/x.txt",
    content: "A quick test in another project.",
    extractionDate: "2022-06-01T00:00:00.000Z"
  })
]

/** Named entities: two persons and a location, one organisation hidden. */
const insertNamedEntities = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`INSERT INTO named_entities (project, id, document_id, root_id, mention, mention_norm, mention_norm_text_length,
      category, offsets, extractor, extractor_language, is_hidden)
    VALUES
      (${project}, 'ne-john', 'doc-mail', 'doc-mail', 'John Doe', 'john doe', 8, 'PERSON', ${[36]}::bigint[], 'CORENLP', 'ENGLISH', false),
      (${project}, 'ne-alice', 'doc-fox', 'doc-fox', 'Alice', 'alice', 5, 'PERSON', ${[1, 40, 80]}::bigint[], 'CORENLP', 'ENGLISH', false),
      (${project}, 'ne-paris', 'doc-attachment', 'doc-mail', 'Paris', 'paris', 5, 'LOCATION', ${[3, 10]}::bigint[], 'CORENLP', 'ENGLISH', false),
      (${project}, 'ne-icij', 'doc-mail', 'doc-mail', 'ICIJ', 'icij', 4, 'ORGANIZATION', ${[1]}::bigint[], 'CORENLP', 'ENGLISH', true)`
)

const loadCorpus = Effect.gen(function* () {
  const index = yield* DocumentIndex
  yield* index.bulkIndex(project, documents)
  yield* index.bulkIndex(otherProject, otherDocuments)
  yield* index.createIndex("empty-project")
  yield* insertNamedEntities
})

/** A migrated database of `kind` holding the corpus, with the PostgreSQL search backend over it. */
export const corpusLayer = (kind: DatabaseKind) =>
  Layer.unwrapScoped(
    Effect.map(dataSourceUrlFor(kind), (url) => {
      const database = Layer.effectDiscard(runMigrations()).pipe(Layer.provideMerge(databaseLayer(url)))
      const services = Layer.mergeAll(PostgresSearchBackend, PostgresDocumentIndex).pipe(Layer.provideMerge(database))
      return Layer.effectDiscard(loadCorpus).pipe(Layer.provideMerge(services), Layer.orDie)
    })
  )

/** Sends one request to the backend and returns its status and body. */
export const send = (path: string, body?: unknown, options: { method?: "GET" | "POST" | "HEAD"; query?: Record<string, string> } = {}) =>
  Effect.flatMap(SearchBackend, (backend) =>
    backend.handle({ method: options.method ?? "POST", path, query: new URLSearchParams(options.query ?? {}), body })
  )

interface Hit {
  readonly _index: string
  readonly _id: string
  readonly _score: number | null
  readonly _routing?: string
  readonly _source?: Record<string, unknown>
  readonly highlight?: Record<string, ReadonlyArray<string>>
  readonly sort?: ReadonlyArray<unknown>
}

export interface SearchResponse {
  readonly hits: {
    readonly total?: { value: number; relation: string }
    readonly max_score: number | null
    readonly hits: ReadonlyArray<Hit>
  }
  readonly aggregations?: Record<
    string,
    { readonly buckets?: ReadonlyArray<Record<string, unknown>>; readonly value?: number | null; readonly [key: string]: unknown }
  >
}

/** A search expected to succeed. */
export const search = (body: unknown, options: { path?: string; query?: Record<string, string> } = {}) =>
  Effect.flatMap(send(options.path ?? `${project}/_search`, body, { query: options.query ?? {} }), (response) =>
    response.status === 200
      ? Effect.succeed(response.body as SearchResponse)
      : Effect.dieMessage(`search failed with ${response.status}: ${JSON.stringify(response.body)}`)
  )

/** Ids of the hits of a search, in order. */
export const ids = (body: unknown, options: { path?: string; query?: Record<string, string> } = {}) =>
  Effect.map(search({ size: 100, ...(body as object) }, options), (response) => response.hits.hits.map((hit) => hit._id))

/** Ids of the hits, sorted (for searches whose order is not the point). */
export const idSet = (body: unknown, options: { path?: string; query?: Record<string, string> } = {}) =>
  Effect.map(ids(body, options), (list) => [...list].sort())

/** The error type of a refused request. */
export const errorOf = (path: string, body: unknown) =>
  Effect.map(send(path, body), (response) => ({
    status: response.status,
    type: (response.body as { error?: { type?: string } }).error?.type
  }))
