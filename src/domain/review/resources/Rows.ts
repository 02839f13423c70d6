/** The review read model's statements: rows of a definition, their count and their related ids; failures are defects. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../../db/SqlFailure.ts"
import type { ReviewUser } from "../ReviewUser.ts"
import type { Fragment, ReadContext, ResourceDefinition, Row, ToMany } from "./Resource.ts"

export const readContextOf = (user: ReviewUser, baseUrl: string) =>
  Effect.map(SqlClient.SqlClient, (sql): ReadContext => ({ sql, user, baseUrl }))

/** Search terms: split on whitespace and commas, double-quoted phrases kept whole. */
const searchTerms = (value: string) =>
  [...value.matchAll(/"([^"]*)"|([^\s,"]+)/g)].map((match) => match[1] ?? match[2] ?? "").filter((term) => term !== "")

/** The conditions of a list: `extra`, the definition's scope, the filters asked for and every search term. */
export const whereOf = (
  context: ReadContext,
  definition: ResourceDefinition,
  filters: ReadonlyArray<{ readonly name: string; readonly value: string }>,
  search: string | undefined,
  extra: ReadonlyArray<Fragment>
) =>
  Effect.gen(function* () {
    const { sql } = context
    const clauses: Array<Fragment> = [...extra]
    if (definition.scope !== undefined) clauses.push(definition.scope(context))
    for (const filter of filters) clauses.push(yield* definition.filters![filter.name]!(filter.value, context))
    const columns = definition.search ?? []
    if (search !== undefined && columns.length > 0) {
      for (const term of searchTerms(search)) {
        clauses.push(sql.or(columns.map((column) => sql`position(lower(${term}) in lower(coalesce(${sql.literal(column)}, ''))) > 0`)))
      }
    }
    return clauses
  })

/** The order of a list: the sort expressions asked for then the id, or the definition's default order. */
export const orderOf = (context: ReadContext, definition: ResourceDefinition, sort: ReadonlyArray<readonly [string, boolean]>) =>
  context.sql.literal(
    sort.length === 0
      ? definition.defaultOrder
      : [...sort.map(([expression, descending]) => `${expression} ${descending ? "DESC" : "ASC"}`), "r.id"].join(", ")
  )

export const idIs = (context: ReadContext, id: number) => context.sql`r.id = ${id}`

export const selectRows = (
  context: ReadContext,
  definition: ResourceDefinition,
  where: ReadonlyArray<Fragment>,
  order: Fragment,
  limit?: { readonly size: number; readonly offset: number }
) => {
  const { sql } = context
  const paging = limit === undefined ? sql`` : sql`LIMIT ${limit.size} OFFSET ${limit.offset}`
  return dieOnSqlError(
    sql<Row>`SELECT ${definition.columns(context)} FROM ${sql.literal(definition.from)} WHERE ${sql.and(where)} ORDER BY ${order} ${paging}`
  )
}

export const countRows = (context: ReadContext, definition: ResourceDefinition, where: ReadonlyArray<Fragment>) => {
  const { sql } = context
  return Effect.map(
    dieOnSqlError(sql<{ count: number }>`SELECT count(*)::int AS count FROM ${sql.literal(definition.from)} WHERE ${sql.and(where)}`),
    ([counted]) => counted?.count ?? 0
  )
}

/**
 * Rows of one definition by id, unscoped (included resources are shown whatever the lists' scopes) unless the
 * definition's scope covers includes too.
 */
export const rowsByIds = (context: ReadContext, definition: ResourceDefinition, ids: ReadonlyArray<number>) => {
  const { sql } = context
  const where = [
    sql`r.id = ANY(${[...new Set(ids)]}::int[])`,
    ...(definition.scopesIncludes === true && definition.scope !== undefined ? [definition.scope(context)] : [])
  ]
  return selectRows(context, definition, where, sql.literal(definition.defaultOrder))
}

/** A to-many relationship of a page of rows: the related ids of each owner, in the relationship's order. */
export interface RelatedIds {
  readonly name: string
  readonly relation: ToMany
  readonly byOwner: ReadonlyMap<number, ReadonlyArray<number>>
}

/** The rows with what the definition computes per page (`enrich`) and the ids of their to-many relationships. */
export const withRelations = (context: ReadContext, definition: ResourceDefinition, fetched: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    const rows = definition.enrich === undefined || fetched.length === 0 ? fetched : yield* definition.enrich(context, fetched)
    const ids = rows.map((row) => row.id)
    const toMany = yield* Effect.forEach(Object.entries(definition.toMany ?? {}), ([name, relation]) =>
      Effect.map(ids.length === 0 ? Effect.succeed([]) : relation.pairs(context, ids), (pairs): RelatedIds => {
        const byOwner = new Map<number, Array<number>>()
        for (const pair of pairs) byOwner.set(pair.owner, [...(byOwner.get(pair.owner) ?? []), pair.id])
        return { name, relation, byOwner }
      })
    )
    return { rows, toMany }
  }).pipe(dieOnSqlError)

/** The extra root `meta` of a list over its whole filtered rows (reviews' `countBy`); none for most definitions. */
export const listMetaOf = (context: ReadContext, definition: ResourceDefinition, where: ReadonlyArray<Fragment>) =>
  definition.listMeta === undefined ? Effect.succeed({}) : dieOnSqlError(definition.listMeta(context, context.sql.and(where)))
