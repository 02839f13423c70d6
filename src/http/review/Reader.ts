import { Effect } from "effect"
import type { Fragment, ReadContext, Registry, ResourceDefinition, ResourceKey, Row } from "../../domain/review/resources/Resource.ts"
import { countRows, idIs, listMetaOf, orderOf, rowsByIds, selectRows, whereOf, withRelations } from "../../domain/review/resources/Rows.ts"
import type { InvalidFilter } from "../../domain/review/ReviewErrors.ts"
import { badRequest, invalidPage, type JsonApiError, notFound } from "./JsonApiError.ts"
import { parseReadQuery, type ReadQuery } from "./Query.ts"

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

type Fields = ReadQuery["fields"]

const typeOf = (definition: ResourceDefinition, row: Row) => (typeof definition.type === "string" ? definition.type : definition.type(row))

const keep = (fields: Fields, type: string, name: string) => fields.get(type)?.has(name) ?? true

/** Serialises rows of one definition: attributes, relationships with their identifiers, self link. */
const buildResources = (
  registry: Registry,
  context: ReadContext,
  definition: ResourceDefinition,
  fetched: ReadonlyArray<Row>,
  fields: Fields
) =>
  Effect.gen(function* () {
    const { rows, toMany } = yield* withRelations(context, definition, fetched)
    return rows.map((row): Built => {
      const type = typeOf(definition, row)
      const attributes = Object.fromEntries(
        Object.entries(definition.attributes(row, context)).filter(([name]) => keep(fields, type, name))
      )
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
        refs.set(
          name,
          relatedIds.map((id) => ({ key: relation.resource, id }))
        )
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

/** Resources of one definition by id, for the `included` member. */
const byIds = (registry: Registry, context: ReadContext, key: ResourceKey, ids: ReadonlyArray<number>, fields: Fields) =>
  Effect.flatMap(rowsByIds(context, registry[key], ids), (rows) => buildResources(registry, context, registry[key], rows, fields))

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
const includedResources = (
  registry: Registry,
  context: ReadContext,
  primary: ReadonlyArray<Built>,
  paths: ReadonlyArray<string>,
  fields: Fields
): Effect.Effect<ReadonlyArray<ResourceObject>> =>
  Effect.gen(function* () {
    const found = new Map<string, ResourceObject>()
    const walk = (owners: ReadonlyArray<Built>, tree: IncludeTree): Effect.Effect<void> =>
      Effect.forEach(Object.entries(tree), ([relation, subtree]) =>
        Effect.gen(function* () {
          const byKey = new Map<ResourceKey, Array<number>>()
          for (const owner of owners)
            for (const ref of owner.refs.get(relation) ?? []) byKey.set(ref.key, [...(byKey.get(ref.key) ?? []), ref.id])
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

/** A filter value the read model refuses, as the 400 of the attribute concerned. */
const filterRefusal = (error: InvalidFilter) => badRequest(error.reason, `/data/attributes/${error.field}`, error.code)

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
): Effect.Effect<Record<string, unknown>, JsonApiError> =>
  Effect.gen(function* () {
    const query = yield* parseReadQuery(request.query, definition)
    const where = yield* Effect.mapError(whereOf(context, definition, query.filters, query.search, extraWhere), filterRefusal)
    const order = orderOf(context, definition, query.sort)
    if (!definition.paginated) {
      const built = yield* buildResources(registry, context, definition, yield* selectRows(context, definition, where, order), query.fields)
      const included = yield* includedResources(registry, context, built, query.include, query.fields)
      return { data: built.map((item) => item.object), ...(included.length > 0 ? { included } : {}) }
    }
    const count = yield* countRows(context, definition, where)
    const pages = Math.max(1, Math.ceil(count / query.pageSize))
    const requested =
      query.pageNumber === undefined
        ? 1
        : query.pageNumber === "last"
          ? pages
          : /^\d+$/.test(query.pageNumber)
            ? Number(query.pageNumber)
            : 0
    if (requested < 1 || requested > pages) return yield* invalidPage()
    const rows = yield* selectRows(context, definition, where, order, { size: query.pageSize, offset: (requested - 1) * query.pageSize })
    const built = yield* buildResources(registry, context, definition, rows, query.fields)
    const included = yield* includedResources(registry, context, built, query.include, query.fields)
    const link = (page: number) => pageLink(context.baseUrl, request.path, request.query, page)
    const extraMeta = yield* listMetaOf(context, definition, where)
    return {
      links: {
        first: link(1),
        last: link(pages),
        next: requested < pages ? link(requested + 1) : null,
        prev: requested > 1 ? link(requested - 1) : null
      },
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
): Effect.Effect<Record<string, unknown>, JsonApiError> =>
  Effect.gen(function* () {
    const parsed = yield* parseReadQuery(query, definition)
    const missing = notFound(notFoundDetail, notFoundDetail === "Not found." ? "/data" : null)
    if (where === undefined && !/^\d{1,9}$/.test(id)) return yield* missing
    const clauses = yield* Effect.mapError(
      whereOf(context, definition, parsed.filters, parsed.search, [where ?? idIs(context, Number(id))]),
      filterRefusal
    )
    const rows = yield* selectRows(context, definition, clauses, orderOf(context, definition, []))
    if (rows.length === 0) return yield* missing
    const built = yield* buildResources(registry, context, definition, rows.slice(0, 1), parsed.fields)
    const included = yield* includedResources(registry, context, built, parsed.include, parsed.fields)
    return { data: built[0]!.object, ...(included.length > 0 ? { included } : {}) }
  })
