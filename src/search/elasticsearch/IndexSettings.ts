import * as path from "node:path"
import type { estypes } from "@elastic/elasticsearch"

/**
 * The settings and mapping a project's index is created with:
 * one shard, the fields `query_string` searches by default, and the analyzers the mapping names.
 */

/** Fields a `query_string` without `fields` searches. */
const defaultFields = [
  "content",
  "content_translated.content",
  "mentionNorm",
  ...["author", "creator", "dc_creator", "dc_title", "message_from", "message_to", "meta_author", "subject", "title", "resourcename"].map(
    (name) => `metadata.tika_metadata_${name}`
  ),
  "name",
  "path",
  "path.parts",
  "tags"
]

/** The path hierarchy splits on the server's own separator, as the reference's Windows variant does. */
export const indexSettings = (separator: string = path.sep): estypes.IndicesIndexSettings => ({
  "index.mapping.total_fields.limit": 100000,
  "index.number_of_shards": 1,
  "index.query.default_field": defaultFields,
  analysis: {
    analyzer: {
      folding: { type: "custom", tokenizer: "standard", filter: ["lowercase", "asciifolding"] },
      path_analyzer: { type: "custom", tokenizer: "path_tokenizer" },
      path_parts_analyzer: { type: "custom", tokenizer: "path_parts_tokenizer", filter: ["lowercase"] }
    },
    tokenizer: {
      path_tokenizer: { type: "path_hierarchy", delimiter: separator },
      path_parts_tokenizer: { type: "pattern", pattern: "[/\\\\. ]+" }
    },
    normalizer: {
      keyword_lowercase: { type: "custom", filter: ["lowercase"] }
    }
  }
})

const keyword: estypes.MappingProperty = { type: "keyword" }
const integer: estypes.MappingProperty = { type: "integer" }
const long: estypes.MappingProperty = { type: "long" }

export const indexMappings: estypes.MappingTypeMapping = {
  dynamic_templates: [
    // Metadata values that look like dates are dates; a malformed one is kept in _source rather than refused.
    { metadata_dates: { path_match: "metadata.*", match_mapping_type: "date", mapping: { type: "date", ignore_malformed: true } } }
  ],
  properties: {
    type: keyword,
    join: { type: "join", relations: { Document: ["NamedEntity", "Duplicate"] } },
    content: { type: "text", analyzer: "folding", index_options: "offsets" },
    metadata: {
      properties: {
        emailHeaderField: { enabled: false },
        tika_metadata_resourcename: {
          type: "text",
          analyzer: "folding",
          fields: { keyword: { type: "keyword", ignore_above: 256 } }
        }
      }
    },
    extractionDate: { type: "date", format: "date_time" },
    extractionLevel: integer,
    path: { type: "keyword", fields: { parts: { type: "text", analyzer: "path_parts_analyzer" } } },
    dirname: { type: "keyword", fields: { tree: { type: "text", analyzer: "path_analyzer", fielddata: true } } },
    title: keyword,
    titleNorm: keyword,
    contentLength: long,
    contentTextLength: long,
    contentEncoding: keyword,
    contentType: keyword,
    contentTypeCategory: keyword,
    language: keyword,
    status: keyword,
    recoveryStatus: keyword,
    nerTags: keyword,
    parentDocument: keyword,
    rootDocument: keyword,
    pstExpected: integer,
    pstEmitted: integer,
    pstUnrecovered: integer,
    nbChildrenEmitted: integer,
    tags: { type: "keyword", normalizer: "keyword_lowercase" },
    mention: { type: "text", index_options: "docs" },
    mentionNorm: keyword,
    mentionNormTextLength: integer,
    category: keyword,
    documentId: keyword,
    offsets: integer,
    extractor: keyword,
    extractorLanguage: keyword,
    partsOfSpeech: { type: "text", index_options: "docs" },
    isHidden: { type: "boolean", null_value: false }
  }
}
