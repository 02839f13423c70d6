import { Schema } from "effect"
import { legacyDate, type LegacyProject } from "../project/Project.ts"

export const batchSearchStates = ["QUEUED", "RUNNING", "SUCCESS", "FAILURE"] as const
export type BatchSearchState = (typeof batchSearchStates)[number]

/** A batch_searches row with its projects, as the repository reads it. */
export interface BatchSearchRow {
  readonly uuid: string
  readonly name: string
  readonly description: string
  readonly userId: string
  readonly batchDate: Date
  readonly state: BatchSearchState
  readonly published: boolean
  readonly phraseMatches: boolean
  readonly fuzziness: number
  readonly fileTypes: ReadonlyArray<string>
  readonly paths: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly nbQueries: number
  readonly batchResults: number
  readonly errorMessage: string | null
  readonly errorQuery: string | null
  readonly projects: ReadonlyArray<string>
}

/** What a new batch search is made of (creation from a CSV, or a copy). */
export interface NewBatchSearch {
  readonly name: string
  readonly description: string
  readonly userId: string
  readonly published: boolean
  readonly phraseMatches: boolean
  readonly fuzziness: number
  readonly fileTypes: ReadonlyArray<string>
  readonly paths: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly projects: ReadonlyArray<string>
  readonly queries: ReadonlyArray<string>
}

/** One stored result: a document matching a query. */
export interface BatchSearchResultRow {
  readonly query: string
  readonly docNb: number
  readonly docId: string
  readonly rootId: string
  readonly docPath: string
  readonly creationDate: Date | null
  readonly contentType: string | null
  readonly contentLength: number | null
  readonly project: string | null
}

/** A user rebuilt from a bare id, as the reference prints batch-search owners. */
const bareUser = (id: string) => ({ id, name: null, email: null, provider: "local", details: {} })

/** A list item; `projects` are the batch's projects as Project objects. */
export const batchSearchRecord = (row: BatchSearchRow, projects: ReadonlyArray<LegacyProject>) => ({
  uuid: row.uuid,
  published: row.published,
  projects,
  name: row.name,
  description: row.description,
  user: bareUser(row.userId),
  state: row.state,
  date: legacyDate(row.batchDate),
  nbQueries: row.nbQueries,
  nbResults: row.batchResults,
  errorMessage: row.errorMessage,
  errorQuery: row.errorQuery
})

/** The single read: the record plus the queries with their result counts (empty unless asked) and the options. */
export const batchSearchDetails = (
  row: BatchSearchRow,
  projects: ReadonlyArray<LegacyProject>,
  queries: Readonly<Record<string, number>>
) => ({
  ...batchSearchRecord(row, projects),
  queries,
  fileTypes: row.fileTypes,
  tags: row.tags,
  paths: row.paths,
  fuzziness: row.fuzziness,
  phraseMatches: row.phraseMatches
})

/** A result row, with its project as an id string. */
export const resultRecord = (row: BatchSearchResultRow) => ({
  query: row.query,
  project: row.project,
  documentId: row.docId,
  rootId: row.rootId,
  documentPath: row.docPath,
  creationDate: row.creationDate === null ? null : legacyDate(row.creationDate),
  contentType: row.contentType,
  contentLength: row.contentLength,
  documentNumber: row.docNb
})

const Sorting = { order: Schema.optional(Schema.Literal("asc", "desc", "ASC", "DESC")) }

/** Columns a listing may be sorted on (seed). */
export const listSortKeys = ["prj_id", "name", "user_id", "description", "state", "batch_date", "batch_results", "published"] as const

/** Body of POST /api/batch/search (the reference's "web query"). */
export const BatchSearchFilter = Schema.Struct({
  from: Schema.optional(Schema.NonNegativeInt),
  size: Schema.optional(Schema.NonNegativeInt),
  sort: Schema.optional(Schema.Literal(...listSortKeys)),
  ...Sorting,
  query: Schema.optional(Schema.String),
  field: Schema.optional(Schema.String),
  project: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  batchDate: Schema.optional(Schema.NullOr(Schema.Array(Schema.Union(Schema.String, Schema.Number)))),
  state: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  publishState: Schema.optional(Schema.NullOr(Schema.Literal("0", "1"))),
  contentTypes: Schema.optional(Schema.NullOr(Schema.Array(Schema.String)))
})
export type BatchSearchFilter = typeof BatchSearchFilter.Type

/** Columns results may be sorted on (seed). */
export const resultSortKeys = ["doc_nb", "doc_id", "root_id", "doc_path", "creation_date", "content_type", "content_length"] as const

/** Body of POST /api/batch/search/result/:batchid. */
export const ResultsFilter = Schema.Struct({
  from: Schema.optional(Schema.NonNegativeInt),
  size: Schema.optional(Schema.NonNegativeInt),
  queries: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  queriesExcluded: Schema.optional(Schema.Boolean),
  contentTypes: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  sort: Schema.optional(Schema.Literal(...resultSortKeys)),
  ...Sorting
})
export type ResultsFilter = typeof ResultsFilter.Type

/** Body of PATCH /api/batch/search/:batchid. */
export const PublishBody = Schema.Struct({ data: Schema.Struct({ published: Schema.Boolean }) })

/** Body of POST /api/batch/search/copy/:sourcebatchid. */
export const CopyBody = Schema.Struct({ name: Schema.optional(Schema.String), description: Schema.optional(Schema.String) })

/** Columns the queries of a batch search may be ordered by. */
export const queryColumns = ["query_number", "query", "query_results"] as const
