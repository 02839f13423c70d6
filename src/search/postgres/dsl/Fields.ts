import type { Statement } from "@effect/sql"
import { fold } from "../TextIndex.ts"

/**
 * The mapping of Datashare's ES index over the columns of the `search_records` view: for each ES field name, its
 * type and the SQL that reads it for a record aliased `alias`. Fields the mapping does not know are `unknown`:
 * queries on them match nothing, sorts put every record last, aggregations find no bucket.
 */
type Fragment = Statement.Fragment
type Sql = Statement.Constructor

export type Field =
  | {
      readonly kind: "keyword"
      readonly column: Fragment
      readonly array: boolean
      readonly lowercase: boolean
      readonly ignoreAbove?: number
    }
  | { readonly kind: "number"; readonly column: Fragment; readonly array: boolean; readonly integer: boolean }
  | { readonly kind: "date"; readonly column: Fragment }
  | { readonly kind: "boolean"; readonly column: Fragment }
  /**
   * Analysed text: `tsvector` is what matches, `normalize` turns query text into its terms' form.
   * `wordCounts`, where the field has it, is a Bloom filter of the words `tsvector` holds at least 2, 4, 8, 16, 32 or
   * 64 times.
   * `outOfRow`: `tsvector` is a column stored compressed out of the row, so each test of it decompresses it again; its
   * name, to read it for other records.
   */
  | {
      readonly kind: "text"
      readonly name: string
      readonly tsvector: Fragment
      readonly wordCounts?: Fragment
      readonly outOfRow?: { readonly column: string }
      readonly source: Fragment
      readonly normalize: (text: string) => string
    }
  /** `dirname.tree`: the ancestors of the directory, as the path-hierarchy tokenizer gives them. */
  | { readonly kind: "tree"; readonly column: Fragment }
  /** `_routing`: only routed records have one. */
  | { readonly kind: "routing"; readonly column: Fragment; readonly routed: Fragment }
  | { readonly kind: "unknown" }

const lowercase = (text: string) => text.toLowerCase()

/**
 * Where `query_string` looks without `fields`: the reference's `index.query.default_field` (content, its
 * translations, mentionNorm, ten `metadata.tika_metadata_*` properties, `path`, `path.parts`, `tags`). The
 * metadata properties, the path parts and the tags are searched together through `_default_text`, one indexed
 * tsvector of their words, so a word found in one of them matches (where ES matches each field on its own, which
 * only differs for several words required together across two of these fields).
 */
export const defaultFields: ReadonlyArray<string> = ["content", "_default_text", "path", "mentionNorm"]

/** Dynamic metadata strings the reference maps as dates (date detection on Tika's date properties). */
const isDateMetadata = (key: string) => /(created|modified|date|saved|printed|iso8601)/.test(key)

export const resolveField = (sql: Sql, name: string, alias: string): Field => {
  const column = (expression: string) => sql.literal(`${alias}.${expression}`)
  const keyword = (expression: string, array = false, lower = false): Field => ({
    kind: "keyword",
    column: column(expression),
    array,
    lowercase: lower
  })
  const number = (expression: string, integer: boolean, array = false): Field => ({
    kind: "number",
    column: column(expression),
    array,
    integer
  })
  const standardText = (expression: string): Field => ({
    kind: "text",
    name,
    tsvector: sql`to_tsvector('simple', coalesce(${column(expression)}, ''))`,
    source: column(expression),
    normalize: lowercase
  })
  switch (name) {
    case "_id":
      return keyword("id")
    case "_index":
      return keyword("project")
    case "_routing":
      return { kind: "routing", column: column("routing"), routed: column("routed") }
    case "type":
      return keyword("type")
    case "path":
      return keyword("path")
    case "path.parts":
      return {
        kind: "text",
        name,
        tsvector: sql`to_tsvector('simple', regexp_replace(coalesce(${column("path")}, ''), '[/\\\\. ]+', ' ', 'g'))`,
        source: column("path"),
        normalize: lowercase
      }
    case "dirname":
      return keyword("dirname")
    case "dirname.tree":
      return { kind: "tree", column: column("dirname_tree") }
    case "content":
      return {
        kind: "text",
        name,
        tsvector: column("content_tsv"),
        wordCounts: column("content_word_counts"),
        outOfRow: { column: "content_tsv" },
        source: column("content"),
        normalize: fold
      }
    case "_default_text":
      return { kind: "text", name, tsvector: column("metadata_tsv"), source: column("metadata_tsv"), normalize: lowercase }
    case "contentType":
      return keyword("content_type")
    case "contentTypeCategory":
    case "contentTypeCategory.keyword":
      return keyword("content_type_category")
    case "contentEncoding":
      return keyword("content_encoding")
    case "language":
      return keyword("language")
    case "status":
      return keyword("status")
    case "parentDocument":
      return keyword("parent_document")
    case "rootDocument":
      return keyword("root_document")
    case "title":
      return keyword("title")
    case "titleNorm":
      return { kind: "keyword", column: sql`lower(${column("title")})`, array: false, lowercase: false }
    case "tags":
      return keyword("tags", true, true)
    case "nerTags":
      return keyword("ner_tags", true)
    case "contentLength":
      return number("content_length", false)
    case "contentTextLength":
      return number("content_text_length", false)
    case "extractionLevel":
      return number("extraction_level", true)
    case "extractionDate":
      return { kind: "date", column: column("extraction_date") }
    case "mention":
      return standardText("mention")
    case "mentionNorm":
      return keyword("mention_norm")
    case "mentionNormTextLength":
      return number("mention_norm_text_length", true)
    case "category":
      return keyword("category")
    case "offsets":
      return number("offsets", true, true)
    case "extractor":
      return keyword("extractor")
    case "extractorLanguage":
      return keyword("extractor_language")
    case "isHidden":
      return { kind: "boolean", column: column("is_hidden") }
    case "partsOfSpeech":
      return standardText("parts_of_speech")
    case "documentId":
      return keyword("document_id")
  }
  if (name.startsWith("metadata.") && name.length > "metadata.".length) {
    const keywordKey = name.endsWith(".keyword") ? name.slice("metadata.".length, -".keyword".length) : undefined
    const key = keywordKey ?? name.slice("metadata.".length)
    const value = sql`(${sql.literal(alias)}.metadata ->> ${key})`
    if (keywordKey !== undefined) return { kind: "keyword", column: value, array: false, lowercase: false, ignoreAbove: 256 }
    if (isDateMetadata(key)) return { kind: "date", column: sql`quarry_try_timestamptz(${value})` }
    return { kind: "text", name, tsvector: sql`to_tsvector('simple', coalesce(${value}, ''))`, source: value, normalize: lowercase }
  }
  return { kind: "unknown" }
}

/** Fields a sort, a terms aggregation or a metric can read values of (text needs fielddata, which is off). */
export const hasDocValues = (field: Field) => field.kind !== "text"
