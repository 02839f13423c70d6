import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** No document of that id (with that routing) in the project's index. */
export class DocumentNotFound extends Schema.TaggedError<DocumentNotFound>()(
  "DocumentNotFound",
  { project: Schema.String, id: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `Document not found`
  }
}

/**
 * The document's bytes cannot be had: its file is no longer where it was indexed from, or (embedded documents)
 * no longer holds it.
 */
export class SourceMissing extends Schema.TaggedError<SourceMissing>()(
  "SourceMissing",
  { path: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `the source of this document is not available: ${this.reason}`
  }
}

/** No translation of the document in that language (Quarry stores none yet). */
export class TranslationNotFound extends Schema.TaggedError<TranslationNotFound>()(
  "TranslationNotFound",
  { targetLanguage: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `Translated content in ${this.targetLanguage} not found`
  }
}

/** The project is not among the caller's, or its mask refuses the caller's address. */
export class DocumentForbidden extends Schema.TaggedError<DocumentForbidden>()(
  "DocumentForbidden",
  { project: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return this.reason
  }
}

/** A content slice or search request the document cannot answer (negative or out-of-range bounds, no query). */
export class InvalidContentRequest extends Schema.TaggedError<InvalidContentRequest>()(
  "InvalidContentRequest",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** A content search for the empty text: nothing to find, 404 as in the reference. */
export class EmptyContentQuery extends Schema.TaggedError<EmptyContentQuery>()(
  "EmptyContentQuery",
  {},
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return "the query is empty: there is nothing to find"
  }
}
