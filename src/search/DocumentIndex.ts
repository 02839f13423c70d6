import type { SqlError } from "@effect/sql"
import { Context, type Effect, type Option } from "effect"
import type { ExtractedDocument } from "../extract/Document.ts"

/**
 * A document as stored in a project's index: the fields of legacy-api-reference §6.4 the extractor produced
 * (without its embedded children, which are documents of their own) plus the named-entity state.
 */
export interface IndexedDocument extends Omit<ExtractedDocument, "children" | "extractionError" | "duplicateId"> {
  readonly nerTags: ReadonlyArray<string>
  /** INDEXED, then DONE once a named-entity pipeline processed it. */
  readonly status: string
  readonly extractionError?: string | undefined
  /** Hex SHA-384 of a top-level file's bytes alone: the id of its Duplicate record when the content is already indexed. */
  readonly duplicateId?: string | undefined
}

/** What a bulk write did: new documents, and files whose content was already indexed at another path. */
export interface BulkResult {
  readonly indexed: number
  readonly duplicates: number
}

/**
 * The one interface the rest of the code uses to store and read documents of a project's index. The PostgreSQL
 * implementation is the default; an Elasticsearch one answers the same calls.
 */
export interface DocumentIndexShape {
  /** Creates the project's index; false when it already existed. */
  readonly createIndex: (project: string) => Effect.Effect<boolean, SqlError.SqlError>
  readonly indexExists: (project: string) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Writes documents in one transaction. A document whose id is already in the index is not overwritten: a
   * Duplicate record (its path, the original's id) is kept instead, as the reference does.
   */
  readonly bulkIndex: (project: string, documents: ReadonlyArray<IndexedDocument>) => Effect.Effect<BulkResult, SqlError.SqlError>
  /** A document by id; with `routing`, only when its root document is that id. */
  readonly get: (
    project: string,
    id: string,
    routing?: string
  ) => Effect.Effect<Option.Option<IndexedDocument>, SqlError.SqlError>
  /** Number of Document records (not Duplicates) of the project. */
  readonly count: (project: string) => Effect.Effect<number, SqlError.SqlError>
  /**
   * Adds labels to the `tags` of documents (each label once); returns the ids found in the index. Concurrent
   * calls on the same documents keep every label.
   */
  readonly addTags: (
    project: string,
    ids: ReadonlyArray<string>,
    tags: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
  /** Removes labels from the `tags` of documents; returns the ids found in the index. */
  readonly removeTags: (
    project: string,
    ids: ReadonlyArray<string>,
    tags: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
  /** Removes the project's index: its documents, Duplicates and the index itself. */
  readonly deleteIndex: (project: string) => Effect.Effect<void, SqlError.SqlError>
}

export class DocumentIndex extends Context.Tag("quarry/DocumentIndex")<DocumentIndex, DocumentIndexShape>() {}
