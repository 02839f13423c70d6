import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { InteractiveFirst } from "../../db/InteractiveFirst.ts"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import { type BulkOptions, type BulkResult, DocumentIndex, type IndexedDocument } from "../DocumentIndex.ts"
import { firstOfEachId } from "../indexedDocuments.ts"
import { postgresIndexUpkeep } from "./PostgresIndexUpkeep.ts"
import { postgresNamedEntities } from "./PostgresNamedEntities.ts"
import { dirnameAncestors, indexedPrefix } from "./TextIndex.ts"

/** Rows per INSERT, and ids per lookup. */
const maxRowsPerInsert = 500
/**
 * Characters of content per INSERT. Its one parameter is folded, escaped and serialized in one go on the event loop
 * (about 30 ms a megabyte of real pages), so a larger statement holds every request that waits behind it: 8 MB
 * statements made `/api/status` wait up to 1.3 s while a corpus indexed.
 */
const maxContentPerInsert = 512 * 1024

interface DocumentRow {
  readonly id: string
  readonly rootId: string
  readonly parentId: string | null
  readonly path: string
  readonly dirname: string
  readonly content: string
  readonly contentType: string
  readonly contentLength: number
  readonly contentTextLength: number
  readonly contentEncoding: string
  readonly language: string
  readonly metadata: Readonly<Record<string, string>>
  readonly extractionDate: Date | string
  readonly extractionLevel: number
  readonly tags: ReadonlyArray<string>
  readonly nerTags: ReadonlyArray<string>
  readonly status: string
  readonly extractionError: string | null
}

const toDocument = (row: DocumentRow): IndexedDocument => ({
  id: row.id,
  path: row.path,
  dirname: row.dirname,
  content: row.content,
  contentLength: row.contentLength,
  contentTextLength: row.contentTextLength,
  contentType: row.contentType,
  contentEncoding: row.contentEncoding,
  language: row.language,
  metadata: row.metadata,
  extractionDate: row.extractionDate instanceof Date ? row.extractionDate.toISOString() : row.extractionDate,
  extractionLevel: row.extractionLevel,
  parentDocument: row.parentId,
  rootDocument: row.rootId,
  tags: row.tags,
  nerTags: row.nerTags,
  status: row.status,
  ...(row.extractionError === null ? {} : { extractionError: row.extractionError })
})

/**
 * Characters PostgreSQL text cannot hold: NUL, and UTF-16 halves without their other half (UTF-8 cannot encode
 * them). Extracted texts may carry either (a NUL in an e-mail body, a PDF's broken text layer).
 */
const unstorable = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
/** Whether a text may hold one: a plain scan, thirty times faster than the replacement on texts that hold none. */
const mayBeUnstorable = /[\0\uD800-\uDFFF]/

/**
 * The documents as one JSON array of rows for `json_to_recordset`: one parameter for a whole batch is far cheaper
 * to build, send and parse than twenty-two a row. Characters text cannot hold become U+FFFD, so that texts keep
 * their length and the offsets into them stay right.
 */
const documentRows = (documents: ReadonlyArray<IndexedDocument>) =>
  JSON.stringify(
    documents.map((d) => ({
      id: d.id,
      root_id: d.rootDocument,
      parent_id: d.parentDocument,
      path: d.path,
      dirname: d.dirname,
      dirname_tree: dirnameAncestors(d.dirname),
      content: d.content,
      content_type: d.contentType,
      content_length: d.contentLength,
      content_text_length: d.contentTextLength,
      content_encoding: d.contentEncoding,
      language: d.language,
      metadata: d.metadata,
      extraction_date: d.extractionDate,
      extraction_level: d.extractionLevel,
      tags: d.tags,
      ner_tags: d.nerTags,
      status: d.status,
      extraction_error: d.extractionError ?? null,
      indexed: indexedPrefix(d.content)
    })),
    (_key, value: unknown) => (typeof value === "string" && mayBeUnstorable.test(value) ? value.replace(unstorable, "\uFFFD") : value)
  )

/** Splits documents into INSERT-sized groups by row count and by content size. */
const batches = (documents: ReadonlyArray<IndexedDocument>): ReadonlyArray<ReadonlyArray<IndexedDocument>> => {
  const groups: Array<Array<IndexedDocument>> = []
  let current: Array<IndexedDocument> = []
  let characters = 0
  for (const document of documents) {
    if (current.length > 0 && (current.length >= maxRowsPerInsert || characters + document.content.length > maxContentPerInsert)) {
      groups.push(current)
      current = []
      characters = 0
    }
    current.push(document)
    characters += document.content.length
  }
  if (current.length > 0) groups.push(current)
  return groups
}

/**
 * The PostgreSQL document index: a `documents` table with a tsvector over a folded prefix of the content, and a
 * `duplicates` table for files whose content was already indexed at another path. It is the documents' repository,
 * so its failed statements are defects (see dieOnSqlError).
 */
export const PostgresDocumentIndex = Layer.effect(
  DocumentIndex,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Present on the embedded database only, where an index task's lexicon words and the refresh go in steps behind the
    // searches (PostgresIndexUpkeep.ts).
    const interactiveFirst = yield* Effect.serviceOption(InteractiveFirst)

    const columns = sql.literal(`id, root_id AS "rootId", parent_id AS "parentId", path, dirname, content,
      content_type AS "contentType", content_length::float8 AS "contentLength",
      content_text_length::float8 AS "contentTextLength", content_encoding AS "contentEncoding", language, metadata,
      extraction_date AS "extractionDate", extraction_level AS "extractionLevel", tags, ner_tags AS "nerTags", status,
      extraction_error AS "extractionError"`)

    /** Inserts documents whose id is new; returns the ids actually inserted. */
    const insertDocuments = (project: string, documents: ReadonlyArray<IndexedDocument>) =>
      sql<{ id: string }>`
        INSERT INTO documents (project, id, root_id, parent_id, path, dirname, dirname_tree, content, content_type,
          content_length, content_text_length, content_encoding, language, metadata, extraction_date, extraction_level,
          tags, ner_tags, status, extraction_error, content_tsv)
        SELECT ${project}, id, root_id, parent_id, path, dirname, dirname_tree, content, content_type,
          content_length, content_text_length, content_encoding, language, metadata, extraction_date, extraction_level,
          tags, ner_tags, status, extraction_error, to_tsvector('simple', indexed)
        FROM json_to_recordset(${documentRows(documents)}::json) AS r(id text, root_id text, parent_id text, path text,
          dirname text, dirname_tree text[], content text, content_type text, content_length bigint,
          content_text_length bigint, content_encoding text, language text, metadata jsonb, extraction_date timestamptz,
          extraction_level integer, tags text[], ner_tags text[], status text, extraction_error text, indexed text)
        ON CONFLICT (project, id) DO NOTHING
        RETURNING id`.pipe(Effect.map((rows) => rows.map((row) => row.id)))

    const storedPaths = (project: string, ids: ReadonlyArray<string>) =>
      Effect.forEach(
        Arr.chunksOf(ids, maxRowsPerInsert),
        (chunk) => sql<{ id: string; path: string }>`SELECT id, path FROM documents WHERE project = ${project} AND id IN ${sql.in(chunk)}`
      ).pipe(Effect.map((groups) => new Map(groups.flat().map((row) => [row.id, row.path] as const))))

    const insertDuplicates = (project: string, duplicates: ReadonlyArray<{ id: string; path: string; documentId: string }>) =>
      Effect.forEach(
        Arr.chunksOf(duplicates, maxRowsPerInsert),
        (chunk) =>
          sql<{ id: string }>`
          INSERT INTO duplicates (project, id, path, document_id)
          VALUES ${sql.join(",", false)(chunk.map((d) => sql`(${project}, ${d.id}, ${d.path}, ${d.documentId})`))}
          ON CONFLICT DO NOTHING
          RETURNING id`
      ).pipe(Effect.map((groups) => groups.reduce((total, rows) => total + rows.length, 0)))

    const createIndex = Effect.fn("DocumentIndex.createIndex")(function* (project: string) {
      const rows = yield* sql`INSERT INTO document_indices (project) VALUES (${project}) ON CONFLICT DO NOTHING RETURNING project`
      return rows.length > 0
    })

    const indexExists = Effect.fn("DocumentIndex.indexExists")(function* (project: string) {
      return (yield* sql`SELECT 1 FROM document_indices WHERE project = ${project}`).length > 0
    })

    /**
     * Existing ids are left as they are (re-indexing a file changes nothing); a top-level file whose id is stored
     * under another path is recorded as a Duplicate of it. The index is created on first write, as Elasticsearch
     * does for a bulk request.
     */
    const bulkIndex = Effect.fn("DocumentIndex.bulkIndex")(function* (
      project: string,
      documents: ReadonlyArray<IndexedDocument>,
      options: BulkOptions = {}
    ) {
      if (documents.length === 0) return { indexed: 0, duplicates: 0 } satisfies BulkResult
      const first = firstOfEachId(documents)
      // The embedded database can leave the documents' words to finishWrites (migration 0160).
      const wordsLater = options.finishLater === true && interactiveFirst._tag === "Some"
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          // The index row is created, or its generation renewed, once, at the end (migration 0151): renewed by the
          // first insert's trigger, the row stayed locked for the whole transaction, and every other write to the
          // project waited for it.
          yield* sql`SELECT set_config('quarry.generation_renewed_by_caller', 'on', true),
            set_config('quarry.index_words_deferred', ${wordsLater ? "on" : "off"}, true)`
          const inserted = new Set((yield* Effect.forEach(batches([...first.values()]), (batch) => insertDocuments(project, batch))).flat())
          const roots = documents.filter((document) => document.parentDocument === null)
          const notInserted = [...new Set(roots.filter((document) => !inserted.has(document.id)).map((document) => document.id))]
          const stored = yield* storedPaths(project, notInserted)
          const pathOf = (id: string) => stored.get(id) ?? first.get(id)?.path
          const duplicates = new Map<string, { id: string; path: string; documentId: string }>()
          for (const document of roots) {
            const isNew = first.get(document.id) === document && inserted.has(document.id)
            if (isNew || pathOf(document.id) === document.path) continue
            const id = document.duplicateId ?? document.id
            duplicates.set(`${id}\0${document.path}`, { id, path: document.path, documentId: document.id })
          }
          const recorded = duplicates.size === 0 ? 0 : yield* insertDuplicates(project, [...duplicates.values()])
          // An upsert alone would draw a number for its insert's default even where the row exists. Where another
          // write created the row meanwhile, the conflict still renews it: its commit may come after that write's.
          yield* sql`
            WITH renewed AS (
              UPDATE document_indices SET generation = nextval('document_index_generations') WHERE project = ${project} RETURNING 1
            )
            INSERT INTO document_indices (project) SELECT ${project} WHERE NOT EXISTS (SELECT 1 FROM renewed)
            ON CONFLICT (project) DO UPDATE SET generation = nextval('document_index_generations')`
          // The triggers renew generations again for whatever else an enclosing transaction writes.
          yield* sql`SELECT set_config('quarry.generation_renewed_by_caller', 'off', true),
            set_config('quarry.index_words_deferred', 'off', true)`
          return { indexed: inserted.size, duplicates: recorded } satisfies BulkResult
        })
      )
    })

    const get = Effect.fn("DocumentIndex.get")(function* (project: string, id: string, routing?: string) {
      const rows = yield* sql<DocumentRow>`
        SELECT ${columns} FROM documents
        WHERE project = ${project} AND id = ${id}${routing === undefined ? sql`` : sql` AND root_id = ${routing}`}`
      return Option.map(Arr.head(rows), toDocument)
    })

    const count = Effect.fn("DocumentIndex.count")(function* (project: string) {
      const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM documents WHERE project = ${project}`
      return rows[0]?.count ?? 0
    })

    /**
     * Locks the documents' rows in id order first, so that concurrent tag writes on overlapping documents queue
     * up instead of deadlocking; each UPDATE then reads the labels the previous writer committed.
     */
    const lockDocuments = (project: string, ids: ReadonlyArray<string>) =>
      sql<{ id: string }>`
        SELECT id FROM documents WHERE project = ${project} AND id = ANY(${ids}::text[]) ORDER BY id FOR UPDATE`.pipe(
        Effect.map((rows) => rows.map((row) => row.id))
      )

    const addTags = Effect.fn("DocumentIndex.addTags")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>
    ) {
      const labels = [...new Set(tags)]
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const found = yield* lockDocuments(project, ids)
          yield* sql`
            UPDATE documents SET tags = tags || ARRAY(SELECT label FROM unnest(${labels}::text[]) AS label WHERE NOT label = ANY(tags))
            WHERE project = ${project} AND id = ANY(${found}::text[])`
          return found
        })
      )
    })

    const removeTags = Effect.fn("DocumentIndex.removeTags")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>
    ) {
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const found = yield* lockDocuments(project, ids)
          yield* sql`
            UPDATE documents SET tags = ARRAY(
              SELECT label FROM unnest(tags) WITH ORDINALITY AS kept(label, position)
              WHERE NOT label = ANY(${tags}::text[]) ORDER BY position)
            WHERE project = ${project} AND id = ANY(${found}::text[])`
          return found
        })
      )
    })

    const deleteIndex = Effect.fn("DocumentIndex.deleteIndex")(function* (project: string) {
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`DELETE FROM named_entities WHERE project = ${project}`
          yield* sql`DELETE FROM duplicates WHERE project = ${project}`
          yield* sql`DELETE FROM documents WHERE project = ${project}`
          yield* sql`DELETE FROM index_words_pending WHERE project = ${project}`
          yield* sql`DELETE FROM document_indices WHERE project = ${project}`
        })
      )
    })

    return DocumentIndex.of(
      dieOnSqlErrors({
        createIndex,
        indexExists,
        bulkIndex,
        get,
        count,
        addTags,
        removeTags,
        deleteIndex,
        ...postgresIndexUpkeep(sql, interactiveFirst),
        ...postgresNamedEntities(sql)
      })
    )
  })
)
