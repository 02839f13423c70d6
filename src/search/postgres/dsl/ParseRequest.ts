import { Effect, Schema } from "effect"
import { maxResultWindow } from "../../SearchBackend.ts"
import { type HighlightField, matchAll, type SearchRequest, type SortClause, type SortOrder, type SourceFilter } from "./Ast.ts"
import { illegalArgument, parsingError, type SearchRequestError, unsupported } from "./Errors.ts"
import { parseAggregations } from "./ParseAggs.ts"
import { decode, isObject, parseQuery } from "./ParseQuery.ts"
import { parseQueryString } from "./QueryString.ts"

const unsupportedKeys = new Set([
  "script_fields",
  "runtime_mappings",
  "suggest",
  "collapse",
  "rescore",
  "search_after",
  "pit",
  "post_filter",
  "stored_fields",
  "docvalue_fields",
  "explain",
  "profile",
  "min_score",
  "indices_boost",
  "slice",
  "fields",
  "stats",
  "ext",
  "knn",
  "rank",
  "retriever",
  "terminate_after"
])
const ignoredKeys = new Set(["timeout", "version", "seq_no_primary_term", "track_scores", "preference"])

const SourceSpec = Schema.Union(
  Schema.Boolean,
  Schema.String,
  Schema.Array(Schema.String),
  Schema.Struct({
    includes: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
    include: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
    excludes: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
    exclude: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String)))
  })
)

const listOf = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : typeof value === "string" ? [value] : value

const sourceFilter = (spec: Schema.Schema.Type<typeof SourceSpec>): SourceFilter | false => {
  if (spec === true) return { _tag: "None" }
  if (spec === false) return false
  if (typeof spec === "string" || Array.isArray(spec))
    return { _tag: "Filter", includes: listOf(spec as string | ReadonlyArray<string>), excludes: [] }
  const object = spec as {
    includes?: string | ReadonlyArray<string>
    include?: string | ReadonlyArray<string>
    excludes?: string | ReadonlyArray<string>
    exclude?: string | ReadonlyArray<string>
  }
  return { _tag: "Filter", includes: listOf(object.includes ?? object.include), excludes: listOf(object.excludes ?? object.exclude) }
}

const HighlightOptions = {
  pre_tags: Schema.optional(Schema.Array(Schema.String)),
  post_tags: Schema.optional(Schema.Array(Schema.String)),
  fragment_size: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  number_of_fragments: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  no_match_size: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  max_analyzed_offset: Schema.optional(Schema.Int.pipe(Schema.positive())),
  type: Schema.optional(Schema.Literal("unified", "plain", "fvh")),
  require_field_match: Schema.optional(Schema.Boolean),
  order: Schema.optional(Schema.Literal("none", "score")),
  encoder: Schema.optional(Schema.Literal("default")),
  boundary_scanner: Schema.optional(Schema.Literal("sentence", "word", "chars")),
  fragmenter: Schema.optional(Schema.Literal("simple", "span")),
  tags_schema: Schema.optional(Schema.Literal("styled"))
}
const FieldOptions = Schema.Struct(HighlightOptions)
const HighlightBody = Schema.Struct({
  ...HighlightOptions,
  fields: Schema.Union(
    Schema.Record({ key: Schema.String, value: FieldOptions }),
    Schema.Array(Schema.Record({ key: Schema.String, value: FieldOptions }))
  )
})

const parseHighlight = (value: unknown): Effect.Effect<ReadonlyArray<HighlightField>, SearchRequestError> =>
  Effect.gen(function* () {
    if (value === undefined) return []
    if (isObject(value) && "highlight_query" in value) return yield* unsupported("highlight_query")
    const body = yield* decode(HighlightBody, value, "highlight")
    const entries = Array.isArray(body.fields) ? body.fields.flatMap((entry) => Object.entries(entry)) : Object.entries(body.fields)
    return entries.map(([field, options]): HighlightField => ({
      field,
      preTag: (options.pre_tags ?? body.pre_tags)?.[0] ?? "<em>",
      postTag: (options.post_tags ?? body.post_tags)?.[0] ?? "</em>",
      fragmentSize: options.fragment_size ?? body.fragment_size ?? 100,
      numberOfFragments: options.number_of_fragments ?? body.number_of_fragments ?? 5,
      noMatchSize: options.no_match_size ?? body.no_match_size ?? 0,
      maxAnalyzedOffset: options.max_analyzed_offset ?? body.max_analyzed_offset
    }))
  })

const SortOptions = Schema.Struct({
  order: Schema.optional(Schema.Literal("asc", "desc", "ASC", "DESC")),
  unmapped_type: Schema.optional(Schema.String),
  missing: Schema.optional(Schema.Literal("_last", "_first")),
  mode: Schema.optional(Schema.Literal("min", "max")),
  numeric_type: Schema.optional(Schema.String),
  format: Schema.optional(Schema.String)
})

const ScriptSort = Schema.Struct({
  type: Schema.optional(Schema.Literal("number", "string")),
  order: Schema.optional(Schema.Literal("asc", "desc")),
  script: Schema.Struct({
    source: Schema.String,
    lang: Schema.optional(Schema.String),
    params: Schema.optional(Schema.Struct({ order: Schema.optional(Schema.Array(Schema.String)) }))
  })
})

const orderOf = (value: string | undefined, field: string): SortOrder =>
  value === undefined ? (field === "_score" ? "desc" : "asc") : value.toLowerCase() === "desc" ? "desc" : "asc"

const fieldSort = (field: string, order: SortOrder, missingFirst = false, unmappedType?: string): SortClause =>
  field === "_score"
    ? { _tag: "Score", order }
    : field === "_doc"
      ? { _tag: "Doc", order }
      : { _tag: "Field", field, order, missingFirst, unmappedType }

/** The two scripts the client sends, recognised literally; any other script is refused. */
const scriptSort = (value: unknown) =>
  Effect.gen(function* () {
    const script = yield* decode(ScriptSort, value, "_script")
    const source = script.script.source.replace(/\s+/g, "")
    const order = script.order ?? "asc"
    if (source === "doc['offsets'].size()" || source === 'doc["offsets"].size()')
      return { _tag: "OffsetsCount", order } satisfies SortClause
    if (/^params\.order\.indexOf\(doc(\._id|\['_id'\]|\["_id"\])\.value\)$/.test(source)) {
      return { _tag: "IdPosition", ids: script.script.params?.order ?? [], order } satisfies SortClause
    }
    return yield* unsupported("script")
  })

const parseSortItem = (item: unknown): Effect.Effect<SortClause, SearchRequestError> =>
  Effect.gen(function* () {
    if (typeof item === "string") return fieldSort(item, orderOf(undefined, item))
    if (!isObject(item) || Object.keys(item).length !== 1) return yield* parsingError("[sort] malformed sort clause")
    const [field, value] = Object.entries(item)[0]!
    if (field === "_script") return yield* scriptSort(value)
    if (typeof value === "string") {
      if (!/^(asc|desc)$/i.test(value)) return yield* illegalArgument(`[sort] unknown order [${value}]`)
      return fieldSort(field, orderOf(value, field))
    }
    const options = yield* decode(SortOptions, value, "sort")
    return fieldSort(field, orderOf(options.order, field), options.missing === "_first", options.unmapped_type)
  })

const parseSort = (value: unknown) =>
  value === undefined ? Effect.succeed(undefined) : Effect.forEach(Array.isArray(value) ? value : [value], parseSortItem)

const nonNegativeInt = (value: unknown, what: string) =>
  Effect.gen(function* () {
    const number = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value
    if (typeof number !== "number" || !Number.isInteger(number) || number >= 2 ** 31)
      return yield* parsingError(`[${what}] must be an integer`)
    if (number < 0) return yield* illegalArgument(`[${what}] parameter cannot be negative, found [${number}]`)
    return number
  })

const trackTotalHitsOf = (value: unknown) =>
  Effect.gen(function* () {
    if (value === undefined) return 10_000
    if (value === true || value === "true") return true
    if (value === false || value === "false") return false
    return yield* nonNegativeInt(value, "track_total_hits")
  })

const urlList = (value: string | null) =>
  value === null
    ? undefined
    : value
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "")

/** `_source`, `_source_includes`, `_source_excludes` URL parameters, which replace the body's `_source`. */
export const urlSource = (query: URLSearchParams): SourceFilter | false | undefined => {
  const source = query.get("_source")
  const includes = urlList(query.get("_source_includes") ?? query.get("_source_include"))
  const excludes = urlList(query.get("_source_excludes") ?? query.get("_source_exclude"))
  if (source === "false") return false
  const sourceList = source === null || source === "true" ? undefined : urlList(source)
  if (sourceList === undefined && includes === undefined && excludes === undefined) return source === "true" ? { _tag: "None" } : undefined
  return { _tag: "Filter", includes: sourceList ?? includes ?? [], excludes: excludes ?? [] }
}

const timeUnitMillis: Record<string, number> = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * The `timeout` of a search (the URL parameter, else the body's) in milliseconds, in ES time units (`500ms`, `10s`,
 * `1m`); undefined when none is given or it is `-1` (no timeout of its own: the server's deadline applies).
 */
export const parseTimeout = (body: unknown, query: URLSearchParams): Effect.Effect<number | undefined, SearchRequestError> => {
  const value = query.get("timeout") ?? (isObject(body) ? body.timeout : undefined)
  if (value === undefined || value === null || value === -1 || value === "-1") return Effect.succeed(undefined)
  const match = typeof value === "string" ? /^\s*(\d+(?:\.\d+)?)\s*(nanos|micros|ms|s|m|h|d)\s*$/.exec(value) : null
  if (match === null) {
    return Effect.fail(
      parsingError(`failed to parse setting [timeout] with value [${String(value)}] as a time value: unit is missing or unrecognized`)
    )
  }
  return Effect.succeed(Math.max(1, Math.ceil(Number(match[1]) * timeUnitMillis[match[2]!]!)))
}

/** A whole `_search` / `_count` body plus the URL parameters that override it. */
export const parseSearchRequest = (body: unknown, query: URLSearchParams): Effect.Effect<SearchRequest, SearchRequestError> =>
  Effect.gen(function* () {
    const json = body ?? {}
    if (!isObject(json)) return yield* parsingError("request body must be an object")
    for (const key of Object.keys(json)) {
      if (unsupportedKeys.has(key)) return yield* unsupported(key)
      if (
        !["query", "from", "size", "sort", "_source", "highlight", "track_total_hits", "aggs", "aggregations"].includes(key) &&
        !ignoredKeys.has(key)
      ) {
        return yield* parsingError(`Unknown key for a START_OBJECT in [${key}].`)
      }
    }
    if (json.aggs !== undefined && json.aggregations !== undefined)
      return yield* parsingError("Found two aggregation definitions: [aggs] and [aggregations]")
    const q = query.get("q")
    const parsedQuery =
      q !== null
        ? yield* parseQueryString({
            query: q,
            fields: undefined,
            defaultOperator: query.get("default_operator")?.toLowerCase() === "and" ? "and" : "or"
          })
        : json.query === undefined
          ? matchAll
          : yield* parseQuery(json.query)
    const from = yield* nonNegativeInt(query.get("from") ?? json.from ?? 0, "from")
    const size = yield* nonNegativeInt(query.get("size") ?? json.size ?? 10, "size")
    if (from + size > maxResultWindow) {
      return yield* illegalArgument(
        `Result window is too large, from + size must be less than or equal to: [${maxResultWindow}] but was [${from + size}].`
      )
    }
    const source =
      urlSource(query) ??
      (json._source === undefined ? { _tag: "None" as const } : sourceFilter(yield* decode(SourceSpec, json._source, "_source")))
    return {
      query: parsedQuery,
      from,
      size,
      sort: yield* parseSort(json.sort),
      source,
      highlight: yield* parseHighlight(json.highlight),
      trackTotalHits: yield* trackTotalHitsOf(query.get("track_total_hits") ?? json.track_total_hits),
      aggregations: yield* parseAggregations(json.aggs ?? json.aggregations)
    } satisfies SearchRequest
  })

/** A `_count` body: only a query. */
export const parseCountRequest = (body: unknown, query: URLSearchParams) =>
  Effect.gen(function* () {
    const json = body ?? {}
    if (!isObject(json)) return yield* parsingError("request body must be an object")
    const extra = Object.keys(json).filter((key) => key !== "query")
    if (extra.length > 0) return yield* parsingError(`request does not support [${extra[0]}]`)
    const q = query.get("q")
    if (q !== null) return yield* parseQueryString({ query: q, fields: undefined, defaultOperator: "or" })
    return json.query === undefined ? matchAll : yield* parseQuery(json.query)
  })

/** `_source` of a single-document GET: the URL parameters, else the whole source. */
export const sourceFilterOfUrl = (query: URLSearchParams): SourceFilter | false => urlSource(query) ?? { _tag: "None" }
