import type { SqlClient } from "@effect/sql"
import { Array as Arr, Effect } from "effect"
import type { NamedEntity } from "../../ner/NamedEntity.ts"
import type { NerSource } from "../DocumentIndex.ts"

/** Entity rows per INSERT: 13 parameters a row. */
const entitiesPerInsert = 1_000

/** The named-entity side of the PostgreSQL document index: the `named_entities` table and documents' nerTags. */
export const postgresNamedEntities = (sql: SqlClient.SqlClient) => {
  const documentsWithoutNerTag = Effect.fn("DocumentIndex.documentsWithoutNerTag")(function* (
    project: string,
    pipeline: string,
    after: string,
    limit: number
  ) {
    return yield* sql<NerSource>`
      SELECT id, root_id AS "rootDocument", parent_id AS "parentDocument", language, content, content_type AS "contentType",
        metadata, ner_tags AS "nerTags"
      FROM documents WHERE project = ${project} AND id > ${after} AND NOT (${pipeline} = ANY(ner_tags))
      ORDER BY id LIMIT ${limit}`
  })

  const countWithoutNerTag = Effect.fn("DocumentIndex.countWithoutNerTag")(function* (project: string, pipeline: string) {
    const rows = yield* sql<{ count: number }>`
      SELECT count(*)::int AS count FROM documents WHERE project = ${project} AND NOT (${pipeline} = ANY(ner_tags))`
    return rows[0]?.count ?? 0
  })

  const bulkIndexNamedEntities = Effect.fn("DocumentIndex.bulkIndexNamedEntities")(function* (
    project: string,
    entities: ReadonlyArray<NamedEntity>
  ) {
    if (entities.length === 0) return 0
    const inserted = yield* sql.withTransaction(
      Effect.forEach(
        Arr.chunksOf(entities, entitiesPerInsert),
        (chunk) =>
          sql<{ id: string }>`
          INSERT INTO named_entities (project, id, document_id, root_id, mention, mention_norm, mention_norm_text_length,
            category, offsets, extractor, extractor_language, is_hidden, parts_of_speech)
          VALUES ${sql.join(
            ",",
            false
          )(
            chunk.map(
              (e) => sql`(${project}, ${e.id}, ${e.documentId}, ${e.rootDocument}, ${e.mention}, ${e.mentionNorm},
                ${e.mentionNormTextLength}, ${e.category}, ${e.offsets}::bigint[], ${e.extractor}, ${e.extractorLanguage},
                ${e.isHidden}, ${e.partsOfSpeech})`
            )
          )}
          ON CONFLICT (project, id) DO NOTHING
          RETURNING id`
      )
    )
    return inserted.reduce((total, rows) => total + rows.length, 0)
  })

  const markNerTagged = Effect.fn("DocumentIndex.markNerTagged")(function* (
    project: string,
    documents: ReadonlyArray<NerSource>,
    pipeline: string
  ) {
    if (documents.length === 0) return
    yield* sql`
      UPDATE documents SET status = 'DONE',
        ner_tags = CASE WHEN ${pipeline} = ANY(ner_tags) THEN ner_tags ELSE ner_tags || ${pipeline}::text END
      WHERE project = ${project} AND id = ANY(${documents.map((document) => document.id)}::text[])`
  })

  const getNamedEntity = Effect.fn("DocumentIndex.getNamedEntity")(function* (project: string, id: string, routing?: string) {
    const rows = yield* sql<NamedEntity>`
      SELECT id, document_id AS "documentId", root_id AS "rootDocument", mention, mention_norm AS "mentionNorm",
        mention_norm_text_length AS "mentionNormTextLength", category, offsets::float8[] AS offsets, extractor,
        extractor_language AS "extractorLanguage", is_hidden AS "isHidden", parts_of_speech AS "partsOfSpeech"
      FROM named_entities
      WHERE project = ${project} AND id = ${id}${routing === undefined ? sql`` : sql` AND root_id = ${routing}`}`
    return Arr.head(rows)
  })

  const hideNamedEntities = Effect.fn("DocumentIndex.hideNamedEntities")(function* (project: string, mentionNorm: string) {
    const rows = yield* sql<{ id: string }>`
      UPDATE named_entities SET is_hidden = true WHERE project = ${project} AND mention_norm = ${mentionNorm} RETURNING id`
    return rows.length
  })

  return { documentsWithoutNerTag, countWithoutNerTag, bulkIndexNamedEntities, markNerTagged, getNamedEntity, hideNamedEntities }
}
