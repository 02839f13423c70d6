import type { SqlError } from "@effect/sql"
import { Effect } from "effect"
import { invalidPage, type JsonApiError, notFound } from "./JsonApiError.ts"
import { parseReadQuery, type ReadQuery, searchTerms } from "./Query.ts"
import type { Fragment, ReadContext, ResourceDefinition, ResourceKey, Row } from "./Resource.ts"

export interface ResourceObject {
  readonly type: string
  readonly id: string
  readonly attributes?: Readonly<Record<string, unknown>>
  readonly relationships?: Readonly<Record<string, unknown>>
  readonly links?: { readonly self: string }
}

/** A serialised resource with what include walking needs: the related (definition key, id) of each relationship. */
interface Built {
  readonly object: ResourceObject
  readonly refs: ReadonlyMap<string, ReadonlyArray<{ readonly key: ResourceKey; readonly id: number }>>
}

export type Registry = Readonly<Record<ResourceKey, ResourceDefinition>>

type Fields = ReadQuery["fields"]

const typeOf = (definition: ResourceDefinition, row: Row) => (typeof definition.type === "string" ? definition.type : definition.type(row))

const keep = (fields: Fields, type: string, name: string) => fields.get(type)?.has(name) ?? true

export const selectRows = (
  context: ReadContext,
  definition: ResourceDefinition,
  where: ReadonlyArray<Fragment>,
  order: Fragment,
  limit?: { readonly size: number; readonly offset: number }
) => {
  const { sql } = context
  const paging = limit === undefined ? sql`` : sql`LIMIT ${limit.size} OFFSET ${limit.offset}`
  return sql<Row>`SELECT ${definition.columns(context)} FROM ${sql.literal(definition.from)} WHERE ${sql.and(where)} ORDER BY ${order} ${paging}`
}

/** Serialises rows of one definition: attributes, relationships with their identifiers, self link. */
export const buildResources = (registry: Registry, context: ReadContext, definition: ResourceDefinition, fetched: ReadonlyArray<Row>, fields: Fields) =>
  Effect.gen(function* () {
    const rows = definition.enrich === undefined || fetched.length === 0 ? fetched : yield* definition.enrich(context, fetched)
    const ids = rows.map((row) => row.id)
    const toMany = yield* Effect.forEach(Object.entries(definition.toMany ?? {}), ([name, relation]) =>
      Effect.map(ids.length === 0 ? Effect.succeed([]) : relation.pairs(context, ids), (pairs) => {
        const byOwner = new Map<number, Array<number>>()
        for (const pair of pairs) byOwner.set(pair.owner, [...(byOwner.get(pair.owner) ?? []), pair.id])
        return { name, relation, byOwner }
      })
    )
    return rows.map((row): Built => {
      const type = typeOf(definition, row)
      const attributes = Object.fromEntries(Object.entries(definition.attributes(row, context)).filter(([name]) => keep(fields, type, name)))
      const relationships: Record<string, unknown> = {}
      const refs = new Map<string, ReadonlyArray<{ key: ResourceKey; id: number }>>()
      for (const [name, relation] of Object.entries(definition.toOne ?? {})) {
        const id = relation.id(row)
        const key = relation.resourceOf?.(row) ?? relation.resource
        refs.set(name, id === null ? [] : [{ key, id }])
        if (!keep(fields, type, name)) continue
        const related = registry[key]
        const relatedType = relation.type?.(row) ?? (typeof related.type === "string" ? related.type : "")
        relationships[name] = { data: id === null ? null : { type: relatedType, id: String(id) } }
      }
      for (const { name, relation, byOwner } of toMany) {
        const relatedIds = byOwner.get(row.id) ?? []
        refs.set(name, relatedIds.map((id) => ({ key: relation.resource, id })))
        if (!keep(fields, type, name)) continue
        const relatedType = registry[relation.resource].type
        relationships[name] = {
          meta: { count: relatedIds.length },
          data: relatedIds.map((id) => ({ type: typeof relatedType === "string" ? relatedType : "", id: String(id) }))
        }
      }
      const object: ResourceObject = {
        type,
        id: String(row.id),
        ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
        ...(Object.keys(relationships).length > 0 ? { relationships } : {}),
        ...(definition.selfPath === undefined ? {} : { links: { self: `${context.baseUrl}/api/v1/${definition.selfPath}/${row.id}/` } })
      }
      return { object, refs }
    })
  })

/**
 * Resources of one definition by id, unscoped (included resources are shown whatever the lists' scopes) unless the
 * definition's scope covers includes too.
 */
const byIds = (registry: Registry, context: ReadContext, key: ResourceKey, ids: ReadonlyArray<number>, fields: Fields) => {
  const definition = registry[key]
  const { sql } = context
  const where = [sql`r.id = ANY(${[...new Set(ids)]}::int[])`, ...(definition.scopesIncludes === true && definition.scope !== undefined ? [definition.scope(context)] : [])]
  return Effect.flatMap(selectRows(context, definition, where, sql.literal(definition.defaultOrder)), (rows) =>
    buildResources(registry, context, definition, rows, fields)
  )
}

interface IncludeTree {
  readonly [relation: string]: IncludeTree
}

const treeOf = (paths: ReadonlyArray<string>) => {
  const root: Record<string, Record<string, never>> = {}
  for (const path of paths) {
    let node: Record<string, Record<string, never>> = root
    for (const segment of path.split(".")) node = node[segment] ??= {}
  }
  return root as IncludeTree
}

/** The `included` member: follows only the requested paths, de-duplicated, ordered by type then id as a string. */
export const includedResources = (
  registry: Registry,
  context: ReadContext,
  primary: ReadonlyArray<Built>,
  paths: ReadonlyArray<string>,
  fields: Fields
): Effect.Effect<ReadonlyArray<ResourceObject>, SqlError.SqlError> =>
  Effect.gen(function* () {
    const found = new Map<string, ResourceObject>()
    const walk = (owners: ReadonlyArray<Built>, tree: IncludeTree): Effect.Effect<void, SqlError.SqlError> =>
      Effect.forEach(Object.entries(tree), ([relation, subtree]) =>
        Effect.gen(function* () {
          const byKey = new Map<ResourceKey, Array<number>>()
          for (const owner of owners) for (const ref of owner.refs.get(relation) ?? []) byKey.set(ref.key, [...(byKey.get(ref.key) ?? []), ref.id])
          for (const [key, ids] of byKey) {
            const related = yield* byIds(registry, context, key, ids, fields)
            for (const built of related) found.set(`${built.object.type}:${built.object.id}`, built.object)
            yield* walk(related, subtree)
          }
        })
      ).pipe(Effect.asVoid)
    yield* walk(primary, treeOf(paths))
    for (const built of primary) found.delete(`${built.object.type}:${built.object.id}`)
    return [...found.values()].sort((a, b) => (a.type === b.type ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.type < b.type ? -1 : 1))
  })

const orderOf = (context: ReadContext, definition: ResourceDefinition, query: ReadQuery) =>
  context.sql.literal(
    query.sort.length === 0 ? definition.defaultOrder : [...query.sort.map(([expression, descending]) => `${expression} ${descending ? "DESC" : "ASC"}`), "r.id"].join(", ")
  )

const whereOf = (context: ReadContext, definition: ResourceDefinition, query: ReadQuery, extra: ReadonlyArray<Fragment>) =>
  Effect.gen(function* () {
    const { sql } = context
    const clauses: Array<Fragment> = [...extra]
    if (definition.scope !== undefined) clauses.push(definition.scope(context))
    for (const filter of query.filters) clauses.push(yield* definition.filters![filter.name]!(filter.value, context))
    const columns = definition.search ?? []
    if (query.search !== undefined && columns.length > 0) {
      for (const term of searchTerms(query.search)) {
        clauses.push(sql.or(columns.map((column) => sql`position(lower(${term}) in lower(coalesce(${sql.literal(column)}, ''))) > 0`)))
      }
    }
    return clauses
  })

/** The links of a page: the request's URL with page[number] replaced, keys sorted, brackets percent-encoded. */
const pageLink = (baseUrl: string, path: string, query: URLSearchParams, page: number) => {
  const entries = [...query].filter(([name]) => name !== "page[number]")
  entries.push(["page[number]", String(page)])
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `${baseUrl}${path}?${new URLSearchParams(entries).toString()}`
}

export interface CollectionRequest {
  readonly path: string
  readonly query: URLSearchParams
}

/** A collection document: scoped, filtered, searched, sorted, paginated when the definition is, with includes. */
export const readCollection = (
  registry: Registry,
  context: ReadContext,
  definition: ResourceDefinition,
  request: CollectionRequest,
  extraWhere: ReadonlyArray<Fragment> = []
): Effect.Effect<Record<string, unknown>, JsonApiError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const { sql } = context
    const query = yield* parseReadQuery(request.query, definition)
    const where = yield* whereOf(context, definition, query, extraWhere)
    const order = orderOf(context, definition, query)
    if (!definition.paginated) {
      const built = yield* buildResources(registry, context, definition, yield* selectRows(context, definition, where, order), query.fields)
      const included = yield* includedResources(registry, context, built, query.include, query.fields)
      return { data: built.map((item) => item.object), ...(included.length > 0 ? { included } : {}) }
    }
    const [counted] = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM ${sql.literal(definition.from)} WHERE ${sql.and(where)}`
    const count = counted?.count ?? 0
    const pages = Math.max(1, Math.ceil(count / query.pageSize))
    const requested = query.pageNumber === undefined ? 1 : query.pageNumber === "last" ? pages : /^\d+$/.test(query.pageNumber) ? Number(query.pageNumber) : 0
    if (requested < 1 || requested > pages) return yield* invalidPage()
    const rows = yield* selectRows(context, definition, where, order, { size: query.pageSize, offset: (requested - 1) * query.pageSize })
    const built = yield* buildResources(registry, context, definition, rows, query.fields)
    const included = yield* includedResources(registry, context, built, query.include, query.fields)
    const link = (page: number) => pageLink(context.baseUrl, request.path, request.query, page)
    const extraMeta = definition.listMeta === undefined ? {} : yield* definition.listMeta(context, sql.and(where))
    return {
      links: { first: link(1), last: link(pages), next: requested < pages ? link(requested + 1) : null, prev: requested > 1 ? link(requested - 1) : null },
      data: built.map((item) => item.object),
      ...(included.length > 0 ? { included } : {}),
      meta: { pagination: { page: requested, pages, count }, ...extraMeta }
    }
  })

/**
 * One resource within the definition's scope, by id or by the `where` given (users by username); 404 with
 * `notFoundDetail` otherwise (no pointer, as the reference's "No <Model> matches the given query.").
 */
export const readOne = (
  registry: Registry,
  context: ReadContext,
  definition: ResourceDefinition,
  id: string,
  query: URLSearchParams,
  notFoundDetail: string,
  where?: Fragment
): Effect.Effect<Record<string, unknown>, JsonApiError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const parsed = yield* parseReadQuery(query, definition)
    const missing = notFound(notFoundDetail, notFoundDetail === "Not found." ? "/data" : null)
    if (where === undefined && !/^\d{1,9}$/.test(id)) return yield* missing
    const clauses = yield* whereOf(context, definition, parsed, [where ?? context.sql`r.id = ${Number(id)}`])
    const rows = yield* selectRows(context, definition, clauses, context.sql.literal(definition.defaultOrder))
    if (rows.length === 0) return yield* missing
    const built = yield* buildResources(registry, context, definition, rows.slice(0, 1), parsed.fields)
    const included = yield* includedResources(registry, context, built, parsed.include, parsed.fields)
    return { data: built[0]!.object, ...(included.length > 0 ? { included } : {}) }
  })
