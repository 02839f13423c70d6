import { HttpApiSchema } from "@effect/platform"
import { Context, type Effect, type Option, Schema } from "effect"
import type { ExtractedDocument } from "../extract/Document.ts"
import type { NamedEntity } from "../ner/NamedEntity.ts"

/**
 * A document as stored in a project's index: the fields of an indexed Document record that the extractor produced
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

export interface BulkOptions {
  /**
   * Leave what can wait to `finishWrites`, so that the write itself is short: the PostgreSQL index on the embedded
   * database then leaves the documents' term-dictionary words. The caller calls `finishWrites` afterwards.
   */
  readonly finishLater?: boolean
}

/** What a bulk write did: new documents, and files whose content was already indexed at another path. */
export interface BulkResult {
  readonly indexed: number
  readonly duplicates: number
}

/** What a named-entity pipeline reads of a document, and what marking it as processed needs. */
export interface NerSource {
  readonly id: string
  readonly rootDocument: string
  readonly parentDocument: string | null
  readonly language: string
  readonly content: string
  readonly contentType: string
  readonly metadata: Readonly<Record<string, string>>
  readonly nerTags: ReadonlyArray<string>
}

/** The index could not be read or written: an Elasticsearch cluster unreachable, timing out or refusing a write. */
export class DocumentIndexUnavailable extends Schema.TaggedError<DocumentIndexUnavailable>()(
  "DocumentIndexUnavailable",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {
  override get message() {
    return `the document index is unavailable: ${this.reason}`
  }
}

/**
 * What a call to the index may fail with: Elasticsearch unreachable or refusing. The PostgreSQL index never fails: its
 * failed statements are defects, as every repository's are.
 */
export type DocumentIndexError = DocumentIndexUnavailable

/**
 * The one interface the rest of the code uses to store and read documents of a project's index. The PostgreSQL
 * implementation is the default; an Elasticsearch one answers the same calls.
 */
export interface DocumentIndexShape {
  /** Creates the project's index; false when it already existed. */
  readonly createIndex: (project: string) => Effect.Effect<boolean, DocumentIndexError>
  readonly indexExists: (project: string) => Effect.Effect<boolean, DocumentIndexError>
  /**
   * Writes documents in one transaction. A document whose id is already in the index is not overwritten: a
   * Duplicate record (its path, the original's id) is kept instead, as the reference does.
   */
  readonly bulkIndex: (
    project: string,
    documents: ReadonlyArray<IndexedDocument>,
    options?: BulkOptions
  ) => Effect.Effect<BulkResult, DocumentIndexError>
  /** A document by id; with `routing`, only when its root document is that id. */
  readonly get: (project: string, id: string, routing?: string) => Effect.Effect<Option.Option<IndexedDocument>, DocumentIndexError>
  /** Number of Document records (not Duplicates) of the project. */
  readonly count: (project: string) => Effect.Effect<number, DocumentIndexError>
  /**
   * Adds labels to the `tags` of documents (each label once); returns the ids found in the index. Concurrent
   * calls on the same documents keep every label.
   */
  readonly addTags: (
    project: string,
    ids: ReadonlyArray<string>,
    tags: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<string>, DocumentIndexError>
  /** Removes labels from the `tags` of documents; returns the ids found in the index. */
  readonly removeTags: (
    project: string,
    ids: ReadonlyArray<string>,
    tags: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<string>, DocumentIndexError>
  /**
   * Up to `limit` documents of the project whose `nerTags` lack `pipeline`, with ids after `after` in id order
   * where the index can order by id (PostgreSQL); Elasticsearch answers from any id, which comes to the same as
   * documents marked with markNerTagged are no longer listed.
   */
  readonly documentsWithoutNerTag: (
    project: string,
    pipeline: string,
    after: string,
    limit: number
  ) => Effect.Effect<ReadonlyArray<NerSource>, DocumentIndexError>
  /** Number of the project's documents whose `nerTags` lack `pipeline`. */
  readonly countWithoutNerTag: (project: string, pipeline: string) => Effect.Effect<number, DocumentIndexError>
  /**
   * Writes named entities as children of their document, routed by its root. An entity whose id is already stored
   * is kept as it is (its id is derived from its content); answers the number of new entities.
   */
  readonly bulkIndexNamedEntities: (project: string, entities: ReadonlyArray<NamedEntity>) => Effect.Effect<number, DocumentIndexError>
  /** Appends `pipeline` to the documents' `nerTags` (once) and sets their `status` to DONE. */
  readonly markNerTagged: (
    project: string,
    documents: ReadonlyArray<NerSource>,
    pipeline: string
  ) => Effect.Effect<void, DocumentIndexError>
  /** A named entity by id; with `routing`, only when its root document is that id. */
  readonly getNamedEntity: (project: string, id: string, routing?: string) => Effect.Effect<Option.Option<NamedEntity>, DocumentIndexError>
  /** Sets `isHidden` on every named entity of the project with that mentionNorm; answers how many matched. */
  readonly hideNamedEntities: (project: string, mentionNorm: string) => Effect.Effect<number, DocumentIndexError>
  /**
   * Finishes, in short steps, what the project's bulk writes with `finishLater` left: the PostgreSQL index on the
   * embedded database adds the words of the documents they inserted to the term dictionary that fuzzy, wildcard,
   * regexp and range terms expand against (migration 0160). Elsewhere there is nothing left.
   */
  readonly finishWrites: (project: string) => Effect.Effect<void, DocumentIndexError>
  /**
   * Makes a large write fast to search, at the end of an index or named-entity task: the PostgreSQL index merges
   * the entries its text indexes keep aside for writes (every search reads them one by one until then) and
   * refreshes the planner's statistics, so that plans do not wait for autovacuum. Elasticsearch does both itself.
   */
  readonly refresh: () => Effect.Effect<void, DocumentIndexError>
  /** Removes the project's index: its documents, Duplicates and the index itself. */
  readonly deleteIndex: (project: string) => Effect.Effect<void, DocumentIndexError>
}

export class DocumentIndex extends Context.Tag("quarry/DocumentIndex")<DocumentIndex, DocumentIndexShape>() {}
