import { Effect, Schema } from "effect"
import type { Aggregation, BucketChildren, BucketOrder, BucketSort, Interval, MetricAgg, MetricKind, SortOrder } from "./Ast.ts"
import { illegalArgument, parsingError, type SearchRequestError, unsupported } from "./Errors.ts"
import { decode, isObject } from "./ParseQuery.ts"
import { ScalarValue } from "./QueryBodies.ts"

/** The aggregations Quarry answers: terms, date_histogram, metrics, bucket_sort, one level of sub-aggregations. */

const metricKinds: ReadonlyArray<MetricKind> = ["sum", "max", "min", "avg", "cardinality", "value_count"]

const unsupportedAggregations = new Set([
  "composite",
  "top_hits",
  "significant_terms",
  "significant_text",
  "percentiles",
  "percentile_ranks",
  "filters",
  "filter",
  "range",
  "date_range",
  "ip_range",
  "histogram",
  "nested",
  "reverse_nested",
  "global",
  "missing",
  "stats",
  "extended_stats",
  "geo_bounds",
  "geo_centroid",
  "geohash_grid",
  "scripted_metric",
  "multi_terms",
  "rare_terms",
  "auto_date_histogram",
  "variable_width_histogram",
  "sampler",
  "diversified_sampler",
  "adjacency_matrix",
  "weighted_avg",
  "median_absolute_deviation",
  "string_stats",
  "boxplot",
  "t_test",
  "top_metrics",
  "matrix_stats",
  "avg_bucket",
  "max_bucket",
  "min_bucket",
  "sum_bucket",
  "stats_bucket",
  "bucket_script",
  "bucket_selector",
  "cumulative_sum",
  "derivative",
  "moving_avg",
  "moving_fn",
  "serial_diff",
  "percentiles_bucket",
  "children",
  "parent"
])

const SortDirection = Schema.Literal("asc", "desc", "ASC", "DESC")
const direction = (value: string): SortOrder => (value.toLowerCase() === "desc" ? "desc" : "asc")

const MetricBody = Schema.Struct({
  field: Schema.String,
  missing: Schema.optional(Schema.Unknown),
  precision_threshold: Schema.optional(Schema.Number),
  format: Schema.optional(Schema.String)
})

const OrderEntry = Schema.Record({ key: Schema.String, value: SortDirection })

const TermsBody = Schema.Struct({
  field: Schema.String,
  size: Schema.optional(Schema.Int.pipe(Schema.between(1, 65_536))),
  shard_size: Schema.optional(Schema.Int),
  min_doc_count: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  order: Schema.optional(Schema.Union(OrderEntry, Schema.Array(OrderEntry))),
  include: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  exclude: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  missing: Schema.optional(ScalarValue),
  show_term_doc_count_error: Schema.optional(Schema.Boolean),
  execution_hint: Schema.optional(Schema.String),
  collect_mode: Schema.optional(Schema.String)
})

const DateHistogramBody = Schema.Struct({
  field: Schema.String,
  calendar_interval: Schema.optional(Schema.String),
  fixed_interval: Schema.optional(Schema.String),
  interval: Schema.optional(Schema.String),
  format: Schema.optional(Schema.String),
  missing: Schema.optional(Schema.String),
  min_doc_count: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  order: Schema.optional(Schema.Union(OrderEntry, Schema.Array(OrderEntry))),
  time_zone: Schema.optional(Schema.Literal("UTC", "Z", "+00:00", "Etc/UTC"))
})

const BucketSortBody = Schema.Struct({
  from: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  size: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  sort: Schema.optional(Schema.Array(Schema.Unknown)),
  gap_policy: Schema.optional(Schema.String)
})

const calendarUnits: Record<string, Extract<Interval, { _tag: "Calendar" }>["unit"]> = {
  "1y": "year",
  year: "year",
  "1q": "quarter",
  quarter: "quarter",
  "1M": "month",
  month: "month",
  "1w": "week",
  week: "week",
  "1d": "day",
  day: "day",
  "1h": "hour",
  hour: "hour",
  "1m": "minute",
  minute: "minute",
  "1s": "second",
  second: "second"
}
const fixedUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

const parseInterval = (body: Schema.Schema.Type<typeof DateHistogramBody>): Effect.Effect<Interval, SearchRequestError> => {
  const calendar = body.calendar_interval ?? (body.interval !== undefined && body.interval in calendarUnits ? body.interval : undefined)
  if (calendar !== undefined) {
    const unit = calendarUnits[calendar]
    return unit === undefined
      ? Effect.fail(illegalArgument(`The supplied calendar interval [${calendar}] could not be parsed as a calendar interval.`))
      : Effect.succeed({ _tag: "Calendar", unit })
  }
  const fixed = body.fixed_interval ?? body.interval
  const match = fixed === undefined ? null : /^(\d+)(ms|s|m|h|d)$/.exec(fixed)
  if (match === null || Number(match[1]) === 0) return Effect.fail(illegalArgument(`[date_histogram] invalid interval [${fixed ?? ""}]`))
  return Effect.succeed({ _tag: "Fixed", millis: Number(match[1]) * fixedUnits[match[2]!]! })
}

const parseOrder = (
  value: Readonly<Record<string, string>> | ReadonlyArray<Readonly<Record<string, string>>> | undefined,
  fallback: BucketOrder
): BucketOrder => {
  if (value === undefined) return fallback
  const entries = (Array.isArray(value) ? value : [value]) as ReadonlyArray<Readonly<Record<string, string>>>
  return entries.flatMap((entry) =>
    Object.entries(entry).map(([by, order]) => ({ by: by === "_term" ? "_key" : by, order: direction(order) }))
  )
}

interface ParsedAggregation {
  readonly type: string
  readonly body: unknown
  readonly children: unknown
}

const splitAggregation = (name: string, value: unknown) =>
  Effect.gen(function* () {
    if (!isObject(value)) return yield* parsingError(`Expected [START_OBJECT] under aggregation [${name}]`)
    const { aggs, aggregations, meta: _meta, ...rest } = value
    const types = Object.keys(rest)
    if (types.length !== 1) return yield* parsingError(`Expected one aggregation type under [${name}], found [${types.join(", ")}]`)
    return { type: types[0]!, body: rest[types[0]!], children: aggs ?? aggregations } satisfies ParsedAggregation
  })

const parseMetric = (type: string, body: unknown): Effect.Effect<MetricAgg, SearchRequestError> =>
  Effect.gen(function* () {
    if (isObject(body) && "script" in body) return yield* unsupported(`script in ${type}`)
    const parts = yield* decode(MetricBody, body, type)
    if (parts.missing !== undefined) return yield* unsupported(`missing in ${type}`)
    return { _tag: "Metric", kind: type as MetricKind, field: parts.field }
  })

/** Sub-aggregations of a bucket aggregation: metrics and one bucket_sort. */
const parseChildren = (children: unknown): Effect.Effect<BucketChildren, SearchRequestError> =>
  Effect.gen(function* () {
    if (children === undefined) return { metrics: [], bucketSort: undefined }
    if (!isObject(children)) return yield* parsingError("aggregations must be an object")
    const metrics: Array<readonly [string, MetricAgg]> = []
    let bucketSort: readonly [string, BucketSort] | undefined
    for (const [name, value] of Object.entries(children)) {
      const child = yield* splitAggregation(name, value)
      if (child.children !== undefined) return yield* unsupported("sub-aggregations deeper than one level")
      if (child.type === "bucket_sort") {
        const parts = yield* decode(BucketSortBody, child.body, "bucket_sort")
        if (parts.sort !== undefined && parts.sort.length > 0) return yield* unsupported("bucket_sort sort")
        bucketSort = [name, { from: parts.from ?? 0, size: parts.size }]
      } else if (metricKinds.includes(child.type as MetricKind)) {
        metrics.push([name, yield* parseMetric(child.type, child.body)])
      } else if (child.type === "terms" || child.type === "date_histogram") {
        return yield* unsupported(`${child.type} under a bucket aggregation`)
      } else {
        return yield* unknownAggregation(child.type)
      }
    }
    return { metrics, bucketSort }
  })

const unknownAggregation = (type: string) =>
  unsupportedAggregations.has(type) ? Effect.fail(unsupported(type)) : Effect.fail(parsingError(`Unknown aggregation type [${type}]`))

const parseAggregation = (name: string, value: unknown): Effect.Effect<Aggregation, SearchRequestError> =>
  Effect.gen(function* () {
    const { type, body, children } = yield* splitAggregation(name, value)
    if (isObject(body) && "script" in body) return yield* unsupported(`script in ${type}`)
    if (type === "terms") {
      const parts = yield* decode(TermsBody, body, type)
      return {
        _tag: "Terms",
        field: parts.field,
        size: parts.size ?? 10,
        minDocCount: parts.min_doc_count ?? 1,
        order: parseOrder(parts.order, [{ by: "_count", order: "desc" }]),
        include: parts.include,
        exclude: parts.exclude,
        missing: parts.missing,
        ...(yield* parseChildren(children))
      }
    }
    if (type === "date_histogram") {
      const parts = yield* decode(DateHistogramBody, body, type)
      return {
        _tag: "DateHistogram",
        field: parts.field,
        interval: yield* parseInterval(parts),
        format: parts.format,
        missing: parts.missing,
        minDocCount: parts.min_doc_count ?? 0,
        order: parseOrder(parts.order, [{ by: "_key", order: "asc" }]),
        ...(yield* parseChildren(children))
      }
    }
    if (metricKinds.includes(type as MetricKind)) {
      if (children !== undefined) return yield* illegalArgument(`Aggregator [${name}] of type [${type}] cannot accept sub-aggregations`)
      return yield* parseMetric(type, body)
    }
    if (type === "bucket_sort")
      return yield* illegalArgument(`bucket_sort aggregation [${name}] must be declared inside of another aggregation`)
    return yield* unknownAggregation(type)
  })

/**
 * Aggregations a search may ask for. Each is a node of the search's statement that may hold up to the session's
 * `work_mem` (32 MB, twice that to hash), kept until the statement ends; the client asks for one at a time.
 */
const maxAggregations = 100

export const parseAggregations = (value: unknown) =>
  Effect.gen(function* () {
    if (value === undefined) return []
    if (!isObject(value)) return yield* parsingError("aggregations must be an object")
    const count = Object.keys(value).length
    if (count > maxAggregations)
      return yield* illegalArgument(
        `Trying to create too many aggregations: [${count}]. Must be less than or equal to: [${maxAggregations}].`
      )
    return yield* Effect.forEach(Object.entries(value), ([name, body]) =>
      Effect.map(parseAggregation(name, body), (agg) => [name, agg] as const)
    )
  })
