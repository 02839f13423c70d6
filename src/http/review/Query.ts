import { Effect } from "effect"
import type { ResourceDefinition } from "../../domain/review/resources/Resource.ts"
import { badRequest, type JsonApiError } from "./JsonApiError.ts"
import { normaliseInclude, normalisePath, toCamel } from "./Names.ts"

export const defaultPageSize = 10
export const maxPageSize = 100

export interface ReadQuery {
  /** Include paths, camelCase; the definition's defaults when the request has no `include`. */
  readonly include: ReadonlyArray<string>
  /** Sparse fieldsets: type → camelCase field names. */
  readonly fields: ReadonlyMap<string, ReadonlySet<string>>
  /** Filters by their normalised name, search excluded. */
  readonly filters: ReadonlyArray<{ readonly name: string; readonly value: string }>
  readonly search: string | undefined
  /** `[expression, descending]` pairs. */
  readonly sort: ReadonlyArray<readonly [string, boolean]>
  /** `page[number]` as sent ("last" allowed), and the size after the reference's clamping. */
  readonly pageNumber: string | undefined
  readonly pageSize: number
}

const bracketed = /^(filter|fields|page)\[(.*)\]$/

/** Sizes the reference accepts: positive integers, clamped to 100; anything else falls back to 10. */
const pageSizeOf = (value: string | undefined) => {
  if (value === undefined || !/^\d+$/.test(value)) return defaultPageSize
  const size = Number(value)
  return size <= 0 ? defaultPageSize : Math.min(size, maxPageSize)
}

const commaList = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")

const parseInclude = (value: string | undefined, definition: ResourceDefinition): Effect.Effect<ReadonlyArray<string>, JsonApiError> => {
  if (value === undefined) return Effect.succeed(definition.defaultInclude ?? [])
  const paths = commaList(value).map(normaliseInclude)
  if (paths.length === 0) return Effect.succeed([])
  const includable = definition.includable ?? []
  if (includable.length === 0) return Effect.fail(badRequest("This endpoint does not support the include parameter"))
  const unknown = paths.find((path) => !includable.includes(path))
  return unknown === undefined
    ? Effect.succeed(paths)
    : Effect.fail(badRequest(`This endpoint does not support the include parameter for path ${unknown}`))
}

const parseSort = (value: string | undefined, definition: ResourceDefinition) => {
  if (value === undefined) return Effect.succeed([])
  const keys = commaList(value)
  const sorts = definition.sorts ?? {}
  const unknown = keys.filter((key) => sorts[normalisePath(key.replace(/^-/, ""))] === undefined)
  if (unknown.length > 0) {
    return Effect.fail(badRequest(`invalid sort parameter${unknown.length > 1 ? "s" : ""}: ${unknown.join(",")}`))
  }
  return Effect.succeed(keys.map((key) => [sorts[normalisePath(key.replace(/^-/, ""))]!, key.startsWith("-")] as const))
}

/**
 * Validates the query string of a collection or detail GET the way the reference does: only sort, include,
 * filter[…], fields[…] and page[…] are allowed, non-filter parameters may not repeat, and every filter, include
 * path and sort key must be one the endpoint declares.
 */
export const parseReadQuery = (query: URLSearchParams, definition: ResourceDefinition) =>
  Effect.gen(function* () {
    const seen = new Set<string>()
    const fields = new Map<string, ReadonlySet<string>>()
    const filters: Array<{ name: string; value: string }> = []
    let search: string | undefined
    for (const [name, value] of query) {
      const match = bracketed.exec(name)
      const family = match?.[1] ?? name
      if (!["sort", "include", "filter", "fields", "page"].includes(family)) {
        return yield* badRequest(`invalid query parameter: ${name}`)
      }
      if (family !== "filter") {
        if (seen.has(name)) return yield* badRequest(`repeated query parameter not allowed: ${name}`)
        seen.add(name)
      }
      if (match === null || family === "page") continue
      const inner = match[2]!
      if (family === "fields") {
        fields.set(inner, new Set(commaList(value).map(toCamel)))
        continue
      }
      if (inner === "") return yield* badRequest(`invalid filter[${inner}]`)
      if (value === "") return yield* badRequest(`missing value for query parameter filter[${inner}]`)
      if (inner === "search") {
        search = value
        continue
      }
      const normalised = normalisePath(inner)
      if (definition.filters?.[normalised] === undefined) return yield* badRequest(`invalid filter[${inner}]`)
      filters.push({ name: normalised, value })
    }
    return {
      include: yield* parseInclude(query.get("include") ?? undefined, definition),
      fields,
      filters,
      search,
      sort: yield* parseSort(query.get("sort") ?? undefined, definition),
      pageNumber: query.get("page[number]") ?? undefined,
      pageSize: pageSizeOf(query.get("page[size]") ?? undefined)
    } satisfies ReadQuery
  })
