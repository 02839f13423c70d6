import { Schema } from "effect"

/**
 * A document (or part of one) could not be extracted: corrupt, encrypted, unsupported, over a limit.
 * Never fails the extraction of a file: it becomes the document's `extractionError` field.
 */
export class ExtractionFailed extends Schema.TaggedError<ExtractionFailed>()("ExtractionFailed", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** The file to extract cannot be read at all (missing, a directory, no permission): nothing to index. */
export class DocumentUnreadable extends Schema.TaggedError<DocumentUnreadable>()("DocumentUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

/** Extracting a file again did not meet the embedded document asked for (the file changed since it was indexed). */
export class EmbeddedNotFound extends Schema.TaggedError<EmbeddedNotFound>()("EmbeddedNotFound", {
  path: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `document ${this.id} is no longer embedded in ${this.path}`
  }
}

/** The message of a library's exception, for an `extractionError` field. */
export const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause)

/** Wraps a library failure as an ExtractionFailed saying what was being done. */
export const failedTo = (what: string) => (cause: unknown) => new ExtractionFailed({ reason: `${what}: ${describe(cause)}` })
