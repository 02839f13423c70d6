import { Schema } from "effect"
import type { IndexedDocument } from "../../search/DocumentIndex.ts"
import { LegacyUser } from "../user/User.ts"

/** A user known only by id, as the reference rebuilds one for tags, history events and recommendations. */
export const userFromId = (id: string): LegacyUser => ({ id, name: null, email: null, provider: "local", details: {} })

/** A tag of a document. */
export const LegacyTag = Schema.Struct({ label: Schema.String, creationDate: Schema.String, user: LegacyUser }).annotations({
  identifier: "Tag"
})
export type LegacyTag = typeof LegacyTag.Type

/** Who recommended documents of a project, with counts. */
export const RecommendationAggregate = Schema.Struct({
  aggregates: Schema.Array(Schema.Struct({ item: LegacyUser, count: Schema.Number })),
  totalCount: Schema.Number.annotations({ description: "distinct documents recommended" })
}).annotations({ identifier: "RecommendationAggregate" })
export type RecommendationAggregate = typeof RecommendationAggregate.Type

/** The count of changed rows the star and recommend endpoints answer. */
export const ChangedRows = Schema.Struct({ result: Schema.Number }).annotations({ identifier: "ChangedRows" })

/** A starred document as GET /api/documents/starred lists it. */
export const legacyStarredDocument = (project: string, document: IndexedDocument) => ({
  id: document.id,
  path: document.path,
  dirname: document.dirname,
  extractionDate: document.extractionDate,
  extractionLevel: document.extractionLevel,
  content: document.content,
  content_translated: [],
  contentLength: document.contentLength,
  contentType: document.contentType,
  contentEncoding: document.contentEncoding,
  language: document.language,
  metadata: document.metadata,
  status: document.status,
  nerTags: document.nerTags,
  tags: document.tags,
  parentDocument: document.parentDocument,
  rootDocument: document.rootDocument,
  projectId: project,
  contentTextLength: document.contentTextLength,
  creationDate: document.metadata.tika_metadata_dcterms_created ?? null
})
