import type { SqlClient, SqlError, Statement } from "@effect/sql"
import type { Effect } from "effect"
import type { InvalidFilter } from "../ReviewErrors.ts"
import type { ReviewUser } from "../ReviewUser.ts"

/** What every read needs: the database, who asks, and the base of absolute links. */
export interface ReadContext {
  readonly sql: SqlClient.SqlClient
  readonly user: ReviewUser
  /** `http://host:port` as the client reached us. */
  readonly baseUrl: string
}

export type Row = { readonly id: number } & Readonly<Record<string, unknown>>

export type Fragment = Statement.Fragment

/** A filter turns the query-string value into a WHERE clause over the alias `r`. */
export type Filter = (value: string, context: ReadContext) => Effect.Effect<Fragment, InvalidFilter>

/** The resource definitions, by key (the type, or the polymorphic family's name for template settings). */
export type ResourceKey =
  | "User"
  | "Project"
  | "ChoiceGroup"
  | "Choice"
  | "AlternativeValue"
  | "Task"
  | "TaskTemplateSetting"
  | "TaskRecord"
  | "TaskRecordMedia"
  | "TaskRecordReview"
  | "TaskRecordReviewHistory"
  | "Tip"
  | "TaskUserStatistics"
  | "TaskChoiceStatistics"
  | "Action"
  | "ActionAggregate"
  | "UserNotification"

export interface ToOne {
  readonly resource: ResourceKey
  readonly id: (row: Row) => number | null
  /** The related type when it depends on the owner row (polymorphic template settings, action targets). */
  readonly type?: (row: Row) => string
  /** The definition of the related row when it depends on the owner row (action targets); `resource` otherwise. */
  readonly resourceOf?: (row: Row) => ResourceKey
}

export interface ToMany {
  readonly resource: ResourceKey
  /** (owner id, related id) pairs for a set of owners, in the order the related ids should be listed. */
  readonly pairs: (
    context: ReadContext,
    ownerIds: ReadonlyArray<number>
  ) => Effect.Effect<ReadonlyArray<{ readonly owner: number; readonly id: number }>, SqlError.SqlError>
}

/**
 * How one JSON:API resource type is read: its SQL projection (over the alias `r`), how a row becomes attributes,
 * its relationships, the includes, filters and sorts its endpoints accept, and who sees which rows.
 */
export interface ResourceDefinition {
  readonly key: ResourceKey
  /** The JSON:API type; a function for polymorphic families (template settings). */
  readonly type: string | ((row: Row) => string)
  /** The collection path under /api/v1/, for self links; undefined for resources without one. */
  readonly selfPath?: string
  /** The FROM clause, a trusted constant with the alias `r` for the resource's table. */
  readonly from: string
  readonly columns: (context: ReadContext) => Fragment
  readonly attributes: (row: Row, context: ReadContext) => Readonly<Record<string, unknown>>
  readonly toOne?: Readonly<Record<string, ToOne>>
  readonly toMany?: Readonly<Record<string, ToMany>>
  /** Extra figures computed per page (task progress), merged into the rows before `attributes` runs. */
  readonly enrich?: (context: ReadContext, rows: ReadonlyArray<Row>) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
  readonly defaultInclude?: ReadonlyArray<string>
  /** Include paths (camelCase, dotted) the endpoints accept. */
  readonly includable?: ReadonlyArray<string>
  /** Filter names in the reference's spelling (snake_case, `__` between segments and before lookups). */
  readonly filters?: Readonly<Record<string, Filter>>
  /** Sort keys (snake_case) and the SQL expression each orders by. */
  readonly sorts?: Readonly<Record<string, string>>
  readonly defaultOrder: string
  /** Columns `filter[search]` looks into. */
  readonly search?: ReadonlyArray<string>
  /** The rows the user may see in lists and detail routes; undefined = all. */
  readonly scope?: (context: ReadContext) => Fragment
  /** Whether `scope` also hides rows from the `included` member of other resources' documents. */
  readonly scopesIncludes?: boolean
  readonly paginated: boolean
  /** Extra root `meta` of a list, computed over the whole filtered list (reviews' `countBy`). */
  readonly listMeta?: (context: ReadContext, where: Fragment) => Effect.Effect<Readonly<Record<string, unknown>>, SqlError.SqlError>
}

export type Registry = Readonly<Record<ResourceKey, ResourceDefinition>>
