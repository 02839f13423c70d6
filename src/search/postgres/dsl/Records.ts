import type { Statement } from "@effect/sql"

/** A row of the `search_records` view as a search hit: its `_source` in the reference's record shapes. */

export interface RecordRow {
  readonly project: string
  readonly id: string
  readonly type: "Document" | "NamedEntity" | "Duplicate"
  readonly routing: string | null
  readonly routed: boolean
  readonly joinParent: string | null
  readonly path: string | null
  readonly dirname: string | null
  readonly content: string | null
  readonly contentType: string | null
  readonly contentTypeCategory: string | null
  readonly contentLength: number | null
  readonly contentTextLength: number | null
  readonly contentEncoding: string | null
  readonly language: string | null
  readonly metadata: Readonly<Record<string, string>> | null
  readonly extractionDate: Date | string | null
  readonly extractionLevel: number | null
  readonly tags: ReadonlyArray<string> | null
  readonly nerTags: ReadonlyArray<string> | null
  readonly status: string | null
  readonly parentDocument: string | null
  readonly rootDocument: string | null
  readonly title: string | null
  readonly mention: string | null
  readonly mentionNorm: string | null
  readonly mentionNormTextLength: number | null
  readonly category: string | null
  readonly offsets: ReadonlyArray<number> | null
  readonly extractor: string | null
  readonly extractorLanguage: string | null
  readonly isHidden: boolean | null
  readonly partsOfSpeech: string | null
  readonly documentId: string | null
}

/** How much of the content a hit reads: none, all of it, or its first characters (what a highlight analyses). */
export type ContentRead = "none" | "whole" | { readonly firstCharacters: number }

/**
 * The content, or its first characters. A text of at most twice that many bytes is read whole: `substr` walks a UTF-8
 * text character by character, and sending the rest of such a text costs less (a page of the real manuals holding a
 * 1.19 MB text: 19.7 ms with `substr` against 16.0 reading it whole). A longer text is cut. What reads the content
 * this way (a highlight) looks no further than its first characters and a margin, so a text read whole answers the
 * same. `octet_length` reads the stored size without decompressing.
 */
const contentColumn = (alias: string, read: ContentRead) => {
  if (read === "none") return "NULL::text AS content"
  const content = `${alias}.content`
  if (read === "whole") return content
  const characters = Math.trunc(read.firstCharacters)
  return `CASE WHEN octet_length(${content}) <= ${2 * characters} THEN ${content} ELSE substr(${content}, 1, ${characters}) END AS content`
}

/** The columns of a hit; the content only when the source or a highlight needs it. */
export const recordColumns = (sql: Statement.Constructor, alias: string, content: ContentRead) =>
  sql.literal(
    [
      "project",
      "id",
      "type",
      "routing",
      "routed",
      `join_parent AS "joinParent"`,
      "path",
      "dirname",
      "content",
      `content_type AS "contentType"`,
      `content_type_category AS "contentTypeCategory"`,
      `content_length::float8 AS "contentLength"`,
      `content_text_length::float8 AS "contentTextLength"`,
      `content_encoding AS "contentEncoding"`,
      "language",
      "metadata",
      `extraction_date AS "extractionDate"`,
      `extraction_level AS "extractionLevel"`,
      "tags",
      `ner_tags AS "nerTags"`,
      "status",
      `parent_document AS "parentDocument"`,
      `root_document AS "rootDocument"`,
      "title",
      "mention",
      `mention_norm AS "mentionNorm"`,
      `mention_norm_text_length AS "mentionNormTextLength"`,
      "category",
      `offsets::float8[] AS offsets`,
      "extractor",
      `extractor_language AS "extractorLanguage"`,
      `is_hidden AS "isHidden"`,
      `parts_of_speech AS "partsOfSpeech"`,
      `document_id AS "documentId"`
    ]
      .map((column) => (column === "content" ? contentColumn(alias, content) : `${alias}.${column}`))
      .join(", ")
  )

const isoDate = (value: Date | string | null) => (value instanceof Date ? value.toISOString() : value)

export const sourceOf = (row: RecordRow): Readonly<Record<string, unknown>> => {
  switch (row.type) {
    case "NamedEntity":
      return {
        type: "NamedEntity",
        join: { name: "NamedEntity", parent: row.joinParent },
        mention: row.mention,
        mentionNorm: row.mentionNorm,
        mentionNormTextLength: row.mentionNormTextLength,
        category: row.category,
        offsets: row.offsets,
        extractor: row.extractor,
        extractorLanguage: row.extractorLanguage,
        partsOfSpeech: row.partsOfSpeech,
        isHidden: row.isHidden
      }
    case "Duplicate":
      return {
        type: "Duplicate",
        join: { name: "Duplicate", parent: row.documentId },
        id: row.id,
        path: row.path,
        documentId: row.documentId
      }
    case "Document":
      return {
        type: "Document",
        join: { name: "Document" },
        path: row.path,
        dirname: row.dirname,
        ...(row.content === null ? {} : { content: row.content }),
        content_translated: [],
        contentType: row.contentType,
        contentTypeCategory: row.contentTypeCategory,
        contentLength: row.contentLength,
        contentTextLength: row.contentTextLength,
        contentEncoding: row.contentEncoding,
        language: row.language,
        metadata: row.metadata,
        extractionDate: isoDate(row.extractionDate),
        extractionLevel: row.extractionLevel,
        parentDocument: row.parentDocument,
        rootDocument: row.rootDocument,
        title: row.title,
        titleNorm: row.title?.toLowerCase() ?? null,
        tags: row.tags,
        nerTags: row.nerTags,
        status: row.status
      }
  }
}

/** `_routing` of a hit: embedded documents, named entities and duplicates are routed, root documents are not. */
export const routingOf = (row: RecordRow) => (row.routed && row.routing !== null ? { _routing: row.routing } : {})
