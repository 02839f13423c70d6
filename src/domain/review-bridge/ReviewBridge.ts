import { Schema } from "effect"

/**
 * Sends the hits of a batch search to a review task. Without `task` a task is created (named `name`, default the
 * batch search's name) in `project` with `choiceGroup`, `checkers` and `rounds`, its records attributed to the
 * checkers round by round; with `task` the hits not yet records of that task are added to it.
 */
export const FromBatchSearchRequest = Schema.Struct({
  batchSearch: Schema.String,
  task: Schema.optional(Schema.Int),
  name: Schema.optional(Schema.String),
  project: Schema.optional(Schema.Int),
  choiceGroup: Schema.optional(Schema.Int),
  /** users.id of the checkers. */
  checkers: Schema.optional(Schema.Array(Schema.Int)),
  rounds: Schema.optional(Schema.Int),
  /** Only the hits of these queries (all queries when absent or empty). */
  queries: Schema.optional(Schema.Array(Schema.String)),
  /** At most the first N hits of each query, in relevance order. */
  maxHitsPerQuery: Schema.optional(Schema.Int),
  /** Leaves out documents that already have a finished review in a task of the same review project. */
  skipReviewed: Schema.optional(Schema.Boolean)
})
export type FromBatchSearchRequest = typeof FromBatchSearchRequest.Type

export const FromBatchSearchResult = Schema.Struct({
  task: Schema.Int,
  /** Whether the task was created by this call. */
  createdTask: Schema.Boolean,
  /** Records added. */
  records: Schema.Int,
  /** Hits left out: already records of the task, or already reviewed in the project. */
  skipped: Schema.Int
})
export type FromBatchSearchResult = typeof FromBatchSearchResult.Type

/**
 * Tags the documents of a task's confirmed records: records with at least one finished review, every finished
 * review's choice value being one of `confirmingValues`.
 */
export const TagDocumentsRequest = Schema.Struct({
  task: Schema.Int,
  tag: Schema.String,
  confirmingValues: Schema.Array(Schema.String)
})
export type TagDocumentsRequest = typeof TagDocumentsRequest.Type

export const TagDocumentsResult = Schema.Struct({
  /** Confirmed records of the task. */
  records: Schema.Int,
  /** Documents of the confirmed records sent to the tag (those gone from the index are skipped). */
  documents: Schema.Int
})
export type TagDocumentsResult = typeof TagDocumentsResult.Type

/** Who asks: the review platform's user (staff only) and the document projects they may use. */
export interface BridgeCaller {
  readonly login: string
  /** users.id, the creator of a new task. */
  readonly userId: number
  readonly isStaff: boolean
  readonly grantedProjects: ReadonlyArray<string>
}
