import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { ContentOccurrences, ContentSlice } from "../domain/document/Content.ts"
import {
  DocumentForbidden,
  DocumentNotFound,
  EmptyContentQuery,
  InvalidContentRequest,
  TranslationNotFound
} from "../domain/document/DocumentErrors.ts"
import { InvalidMarks, TooManyMarks } from "../domain/document/DocumentMarkErrors.ts"
import { LegacyTag, RecommendationAggregate } from "../domain/document/Marks.ts"
import { ProjectForbidden } from "../domain/project/ProjectErrors.ts"
import { DocumentIndexUnavailable } from "../search/DocumentIndex.ts"

/** An indexed document without its text (read the text, or a slice of it, with `getContent`). */
export const DocumentView = Schema.Struct({
  id: Schema.String,
  project: Schema.String,
  path: Schema.String,
  dirname: Schema.String,
  contentType: Schema.String,
  contentEncoding: Schema.String,
  contentLength: Schema.Number,
  contentTextLength: Schema.Number,
  language: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.String }),
  extractionDate: Schema.String,
  extractionLevel: Schema.Number,
  parentDocument: Schema.NullOr(Schema.String),
  rootDocument: Schema.String,
  tags: Schema.Array(Schema.String),
  nerTags: Schema.Array(Schema.String),
  status: Schema.String
}).annotations({ identifier: "DocumentView" })
export type DocumentView = typeof DocumentView.Type

/** A document of a project; `routing` is the id of its root document (embedded documents). */
const DocumentRef = { project: Schema.String, id: Schema.String, routing: Schema.optional(Schema.String) }
const Ids = Schema.Array(Schema.String)
const ReadError = Schema.Union(DocumentForbidden, DocumentNotFound, DocumentIndexUnavailable)
const MarkError = Schema.Union(ProjectForbidden, InvalidMarks, TooManyMarks, DocumentIndexUnavailable)
const SingleTagError = Schema.Union(ProjectForbidden, InvalidMarks, TooManyMarks, DocumentNotFound, DocumentIndexUnavailable)

/**
 * Documents of the caller's projects: reading them, their text, tags, stars and read marks (recommendations), with
 * the checks and limits of the legacy document endpoints (at most 10 000 ids and 100 tags per call, 1 to 64
 * characters per tag, no `,`).
 */
export class DocumentRpcs extends RpcGroup.make(
  Rpc.make("getDocument", { payload: DocumentRef, success: DocumentView, error: ReadError }),
  /** A slice of the text in UTF-16 code units (`offset` and `limit` together), or all of it. */
  Rpc.make("getContent", {
    payload: {
      ...DocumentRef,
      offset: Schema.optional(Schema.Int),
      limit: Schema.optional(Schema.Int),
      targetLanguage: Schema.optional(Schema.String)
    },
    success: ContentSlice,
    error: Schema.Union(ReadError, TranslationNotFound, InvalidContentRequest)
  }),
  /** Offsets of every case-insensitive occurrence of `query` in the text; EmptyContentQuery for an empty one. */
  Rpc.make("searchContent", {
    payload: { ...DocumentRef, query: Schema.String, targetLanguage: Schema.optional(Schema.String) },
    success: ContentOccurrences,
    error: Schema.Union(ReadError, TranslationNotFound, InvalidContentRequest, EmptyContentQuery)
  }),
  /** Adds tags to one document: true when a tag was added, false when it had them all. */
  Rpc.make("tagDocument", { payload: { ...DocumentRef, tags: Ids }, success: Schema.Boolean, error: SingleTagError }),
  /** Removes tags from one document: true when a tag was removed. */
  Rpc.make("untagDocument", { payload: { ...DocumentRef, tags: Ids }, success: Schema.Boolean, error: SingleTagError }),
  /** Adds tags to documents of the project (ids the index does not hold are skipped). */
  Rpc.make("tagDocuments", { payload: { project: Schema.String, ids: Ids, tags: Ids }, error: MarkError }),
  Rpc.make("untagDocuments", { payload: { project: Schema.String, ids: Ids, tags: Ids }, error: MarkError }),
  Rpc.make("listTags", { payload: { project: Schema.String, id: Schema.String }, success: Schema.Array(LegacyTag), error: MarkError }),
  /** Ids of the project's documents having any of the tags. */
  Rpc.make("taggedDocuments", { payload: { project: Schema.String, tags: Ids }, success: Ids, error: MarkError }),
  /** Stars documents for the caller: the number of stars added. */
  Rpc.make("star", { payload: { project: Schema.String, ids: Ids }, success: Schema.Number, error: MarkError }),
  Rpc.make("unstar", { payload: { project: Schema.String, ids: Ids }, success: Schema.Number, error: MarkError }),
  Rpc.make("starredDocuments", { payload: { project: Schema.String }, success: Ids, error: MarkError }),
  /** Marks documents as read by the caller (the reference's recommendations): the number of marks added. */
  Rpc.make("markRead", { payload: { project: Schema.String, ids: Ids }, success: Schema.Number, error: MarkError }),
  Rpc.make("unmarkRead", { payload: { project: Schema.String, ids: Ids }, success: Schema.Number, error: MarkError }),
  /** Ids of the documents those users marked as read. */
  Rpc.make("readBy", { payload: { project: Schema.String, users: Ids }, success: Ids, error: MarkError }),
  /** Who marked documents of the project (only these `ids` when given) as read, with counts. */
  Rpc.make("readers", {
    payload: { project: Schema.String, ids: Schema.optional(Ids) },
    success: RecommendationAggregate,
    error: MarkError
  })
) {}
