import { Schema } from "effect"
import type { IndexedDocument } from "../DocumentIndex.ts"

/**
 * The `_source` of the index's records (Document, NamedEntity and Duplicate, as Datashare's index holds them) and
 * the way back to an IndexedDocument. Field names are the reference's, so that front ends and scripts read them unchanged.
 */

/** A Document record: roots carry `parentDocument: null` and their own id as `rootDocument`. */
export const documentSource = (document: IndexedDocument) => ({
  type: "Document",
  join: { name: "Document" },
  path: document.path,
  dirname: document.dirname,
  content: document.content,
  contentLength: document.contentLength,
  contentTextLength: document.contentTextLength,
  contentType: document.contentType,
  contentEncoding: document.contentEncoding,
  language: document.language,
  metadata: document.metadata,
  extractionDate: document.extractionDate,
  extractionLevel: document.extractionLevel,
  parentDocument: document.parentDocument,
  rootDocument: document.rootDocument,
  tags: document.tags,
  nerTags: document.nerTags,
  status: document.status,
  ...(document.extractionError === undefined ? {} : { extractionError: document.extractionError })
})

/** Embedded documents are routed by their root's id, so that a whole file's tree lives on one shard. */
export const documentRouting = (document: IndexedDocument) => (document.parentDocument === null ? undefined : document.rootDocument)

export interface DuplicateRecord {
  /** Hex SHA-384 of the duplicate file's bytes alone. */
  readonly id: string
  readonly path: string
  /** Id of the document already indexed with the same content. */
  readonly documentId: string
}

/** A Duplicate record: a child of the original document in the join, routed by the original's id. */
export const duplicateSource = (duplicate: DuplicateRecord) => ({
  id: duplicate.id,
  path: duplicate.path,
  documentId: duplicate.documentId,
  type: "Duplicate",
  join: { name: "Duplicate", parent: duplicate.documentId }
})

/** Whether a record's `_source` is a Document: its `type` says so, and a record without one counts as a Document. */
export const isDocumentRecord = (source: unknown): source is object =>
  typeof source === "object" && source !== null && (!("type" in source) || source.type === "Document")

const withDefault = <S extends Schema.Schema.Any>(schema: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { default: value, nullable: true })

/** Metadata values are strings in Quarry's documents; a value another indexer stored as a number is read as text. */
const MetadataValue = Schema.transform(Schema.Unknown, Schema.String, {
  strict: true,
  decode: (value) => (typeof value === "string" ? value : JSON.stringify(value)),
  encode: (value) => value
})

/**
 * A Document's `_source` as read back. Records written by other indexers (an existing Datashare index) may lack
 * fields; they get the values the reference's reader assumes.
 */
const StoredDocument = Schema.Struct({
  path: Schema.String,
  dirname: withDefault(Schema.String, () => ""),
  content: withDefault(Schema.String, () => ""),
  contentLength: withDefault(Schema.Number, () => -1),
  contentTextLength: Schema.optionalWith(Schema.Number, { nullable: true }),
  contentType: withDefault(Schema.String, () => "unknown"),
  contentEncoding: withDefault(Schema.String, () => "unknown"),
  language: withDefault(Schema.String, () => "ENGLISH"),
  metadata: withDefault(Schema.Record({ key: Schema.String, value: MetadataValue }), () => ({})),
  extractionDate: Schema.String,
  extractionLevel: withDefault(Schema.Number, () => 0),
  parentDocument: withDefault(Schema.NullOr(Schema.String), () => null),
  rootDocument: Schema.optionalWith(Schema.String, { nullable: true }),
  tags: withDefault(Schema.Array(Schema.String), () => []),
  nerTags: withDefault(Schema.Array(Schema.String), () => []),
  status: withDefault(Schema.String, () => "INDEXED"),
  extractionError: Schema.optionalWith(Schema.String, { nullable: true })
})

export const decodeStoredDocument = Schema.decodeUnknown(StoredDocument)

/** The IndexedDocument of a stored record; without `rootDocument`, the root is the routing value or the id itself. */
export const toIndexedDocument = (id: string, routing: string | undefined, stored: typeof StoredDocument.Type): IndexedDocument => ({
  id,
  path: stored.path,
  dirname: stored.dirname,
  content: stored.content,
  contentLength: stored.contentLength,
  contentTextLength: stored.contentTextLength ?? stored.content.length,
  contentType: stored.contentType,
  contentEncoding: stored.contentEncoding,
  language: stored.language,
  metadata: stored.metadata,
  extractionDate: stored.extractionDate,
  extractionLevel: stored.extractionLevel,
  parentDocument: stored.parentDocument,
  rootDocument: stored.rootDocument ?? routing ?? id,
  tags: stored.tags,
  nerTags: stored.nerTags,
  status: stored.status,
  ...(stored.extractionError === undefined ? {} : { extractionError: stored.extractionError })
})
