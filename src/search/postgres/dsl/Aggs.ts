import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Aggregation, BucketChildren, BucketOrder, DateHistogramAgg, MetricAgg, TermsAgg } from "./Ast.ts"
import { bucketStart, checkFormat, formatDate, nextBucket, parseFormatted } from "./DateFormat.ts"
import { illegalArgument, SearchRequestError, unsupported } from "./Errors.ts"
import { type Field, resolveField } from "./Fields.ts"
import { translateRegexp } from "./Patterns.ts"

/**
 * Aggregations over the records a query matched, read from `matched` (the search materialises them once): each
 * aggregation is one subquery of the same statement, grouping in the database and answering its buckets as JSON;
 * bucket_sort and empty histogram buckets are applied to the ordered buckets here.
 */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor

/** ES's search.max_buckets. */
const maxBuckets = 65_536

const fielddataError = (name: string) =>
  illegalArgument(
    `Fielddata is disabled on [${name}] in [datashare]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default.`
  )

type ValueKind = "string" | "number" | "date" | "boolean"

/** The values of a field an aggregation reads, one row per distinct value of a record. */
interface Values {
  readonly kind: ValueKind
  /** A FROM item yielding the column `k` for a record `r`. */
  readonly lateral: Fragment
}

const valuesOf = (sql: Sql, field: Field, name: string): Effect.Effect<Values | undefined, SearchRequestError> => {
  const scalar = (kind: ValueKind, expression: Fragment): Values => ({ kind, lateral: sql`LATERAL (SELECT ${expression} AS k) t` })
  const array = (kind: ValueKind, expression: Fragment, lower = false): Values => ({
    kind,
    lateral: sql`LATERAL (SELECT DISTINCT ${lower ? sql`lower(x)` : sql`x`} AS k FROM unnest(${expression}) AS u(x)) t`
  })
  switch (field.kind) {
    case "keyword":
      if (field.array) return Effect.succeed(array("string", field.column, field.lowercase))
      return Effect.succeed(
        scalar(
          "string",
          field.ignoreAbove === undefined
            ? field.column
            : sql`CASE WHEN length(${field.column}) <= ${field.ignoreAbove} THEN ${field.column} END`
        )
      )
    case "number":
      return Effect.succeed(field.array ? array("number", sql`${field.column}::float8[]`) : scalar("number", sql`${field.column}::float8`))
    case "date":
      return Effect.succeed(scalar("date", sql`(extract(epoch FROM ${field.column}) * 1000)::float8`))
    case "boolean":
      return Effect.succeed(scalar("boolean", field.column))
    case "tree":
      return Effect.succeed(array("string", field.column))
    case "routing":
      return Effect.succeed(scalar("string", sql`CASE WHEN ${field.routed} THEN ${field.column} END`))
    case "text":
      return Effect.fail(fielddataError(name))
    case "unknown":
      return Effect.succeed(undefined)
  }
}

/** A metric inside a bucket, over each record's single value (a scalar subquery of its lateral item). */
const metricExpression = (sql: Sql, metric: MetricAgg, values: Values | undefined): Effect.Effect<Fragment, SearchRequestError> =>
  Effect.gen(function* () {
    if (values === undefined)
      return metric.kind === "sum" || metric.kind === "cardinality" || metric.kind === "value_count"
        ? sql.literal("0")
        : sql.literal("NULL::float8")
    const value = values.kind === "boolean" ? sql`(SELECT k::int FROM ${values.lateral})` : sql`(SELECT k FROM ${values.lateral})`
    switch (metric.kind) {
      case "sum":
        return sql`coalesce(sum(${value}), 0)::float8`
      case "max":
        return sql`max(${value})::float8`
      case "min":
        return sql`min(${value})::float8`
      case "avg":
        return sql`avg(${value})::float8`
      case "cardinality":
        return sql`count(DISTINCT ${value})::int`
      case "value_count":
        return sql`count(${value})::int`
    }
  })

const metricValue = (metric: MetricAgg, kind: ValueKind | undefined, raw: unknown) => {
  const value = raw === null || raw === undefined ? (metric.kind === "sum" ? 0 : null) : Number(raw)
  return kind === "date" && value !== null && (metric.kind === "max" || metric.kind === "min")
    ? { value, value_as_string: formatDate(value, undefined) }
    : { value }
}

/** Values of a metric's field, refusing array fields inside buckets (one scalar per record there). */
const metricValues = (sql: Sql, metric: MetricAgg, alias: string) =>
  Effect.gen(function* () {
    const field = resolveField(sql, metric.field, alias)
    if ((field.kind === "keyword" || field.kind === "number") && field.array)
      return yield* unsupported(`${metric.kind} of the array field ${metric.field} inside a bucket`)
    if (field.kind === "tree") return yield* unsupported(`${metric.kind} of ${metric.field} inside a bucket`)
    return yield* checkNumeric(metric, yield* valuesOf(sql, field, metric.field))
  })

/** sum, avg, min and max read numbers (dates and booleans count as numbers); cardinality and counts read anything. */
const checkNumeric = (metric: MetricAgg, values: Values | undefined) =>
  values !== undefined && values.kind === "string" && metric.kind !== "cardinality" && metric.kind !== "value_count"
    ? Effect.fail(illegalArgument(`Field [${metric.field}] of type [keyword] is not supported for aggregation [${metric.kind}]`))
    : Effect.succeed(values)

/** One aggregation: its subquery over `matched`, and how its value becomes the ES response. */
export interface AggregationPart {
  readonly select: Fragment
  readonly finish: (value: unknown) => Effect.Effect<unknown, SearchRequestError>
}

const constantPart = (sql: Sql, value: unknown): AggregationPart => ({ select: sql.literal("NULL"), finish: () => Effect.succeed(value) })

const metricPart = (sql: Sql, metric: MetricAgg) =>
  Effect.gen(function* () {
    const values = yield* checkNumeric(metric, yield* valuesOf(sql, resolveField(sql, metric.field, "r"), metric.field))
    if (values === undefined) return constantPart(sql, metricValue(metric, undefined, null))
    const value = values.kind === "boolean" ? sql`t.k::int` : sql`t.k`
    const aggregate = {
      sum: sql`coalesce(sum(${value}), 0)::float8`,
      max: sql`max(${value})::float8`,
      min: sql`min(${value})::float8`,
      avg: sql`avg(${value})::float8`,
      cardinality: sql`count(DISTINCT ${value})::int`,
      value_count: sql`count(${value})::int`
    }[metric.kind]
    return {
      select: sql`(SELECT ${aggregate} FROM matched r CROSS JOIN ${values.lateral})`,
      finish: (value) => Effect.succeed(metricValue(metric, values.kind, value))
    } satisfies AggregationPart
  })

interface BucketRow {
  readonly key: unknown
  readonly doc_count: number
  readonly total: number
  readonly [metric: string]: unknown
}

const orderBy = (sql: Sql, order: BucketOrder, children: BucketChildren, keyIsText: boolean) =>
  Effect.forEach(order, ({ by, order: direction }) => {
    const dir = sql.literal(direction === "desc" ? "DESC" : "ASC")
    if (by === "_count") return Effect.succeed(sql`doc_count ${dir}`)
    if (by === "_key") return Effect.succeed(keyIsText ? sql`key COLLATE "C" ${dir}` : sql`key ${dir}`)
    const index = children.metrics.findIndex(([name]) => name === by || `${name}.value` === by)
    if (index < 0) return Effect.fail(illegalArgument(`Invalid aggregation order path [${by}]. Unknown aggregation [${by}]`))
    return Effect.succeed(sql`${sql.literal(`m${index}`)} ${dir} NULLS LAST`)
  })

const keyFilter = (sql: Sql, pattern: string | ReadonlyArray<string> | undefined, key: Fragment) =>
  Effect.gen(function* () {
    if (pattern === undefined) return undefined
    if (typeof pattern === "string") return sql`${key}::text ~ ${yield* translateRegexp(pattern)}`
    return pattern.length === 0 ? sql.literal("false") : sql`${key}::text IN ${sql.in(pattern as Array<string>)}`
  })

/** The values each metric of a bucket reads (undefined for an unknown field), in the order of the metrics. */
type MetricValues = ReadonlyArray<Values | undefined>

const bucketMetricValues = (sql: Sql, children: BucketChildren): Effect.Effect<MetricValues, SearchRequestError> =>
  Effect.forEach(children.metrics, ([, metric]) => metricValues(sql, metric, "r"))

/** Buckets as a JSON array of rows: key, doc_count, the metrics m0…, and the total of all buckets' counts. */
const bucketSelect = (
  sql: Sql,
  key: Fragment,
  lateral: Fragment,
  children: BucketChildren,
  values: MetricValues,
  filters: ReadonlyArray<Fragment>,
  order: ReadonlyArray<Fragment>,
  limit: number | undefined,
  minDocCount = 1
) =>
  Effect.gen(function* () {
    const metrics = yield* Effect.forEach(children.metrics, ([, metric], index) =>
      Effect.map(metricExpression(sql, metric, values[index]), (expression) => sql`${expression} AS ${sql.literal(`m${index}`)}`)
    )
    const conditions = [sql`${key} IS NOT NULL`, ...filters]
    // Grouped in a subquery so that the ordering can use the bucket columns in expressions (a collation).
    return sql`(SELECT coalesce(json_agg(p ORDER BY p.ord), '[]'::json) FROM (
      SELECT buckets.*, row_number() OVER (ORDER BY ${sql.csv([...order, sql`key ASC`])}) AS ord FROM (
        SELECT ${key} AS key, count(*)::int AS doc_count, (sum(count(*)) OVER ())::float8 AS total${metrics.length === 0 ? sql`` : sql`, ${sql.csv(metrics)}`}
        FROM matched r CROSS JOIN ${lateral}
        WHERE ${sql.and(conditions)}
        GROUP BY 1${minDocCount > 1 ? sql` HAVING count(*) >= ${minDocCount}` : sql``}
      ) buckets
    ) p${limit === undefined ? sql`` : sql` WHERE p.ord <= ${limit}`})`
  })

const rowsOf = (value: unknown): ReadonlyArray<BucketRow> => (Array.isArray(value) ? (value as ReadonlyArray<BucketRow>) : [])

/** The bucket's metrics; a date's max or min also as text, as at the top level. */
const childrenOf = (row: BucketRow, children: BucketChildren, values: MetricValues) =>
  Object.fromEntries(children.metrics.map(([name, metric], index) => [name, metricValue(metric, values[index]?.kind, row[`m${index}`])]))

const cut = <A>(buckets: ReadonlyArray<A>, children: BucketChildren) =>
  children.bucketSort === undefined
    ? buckets
    : buckets.slice(
        children.bucketSort[1].from,
        children.bucketSort[1].size === undefined ? undefined : children.bucketSort[1].from + children.bucketSort[1].size
      )

const keyOf = (kind: ValueKind, raw: unknown) => {
  if (kind === "number") return { key: Number(raw) }
  if (kind === "date") return { key: Number(raw), key_as_string: formatDate(Number(raw), undefined) }
  if (kind === "boolean") return { key: raw === true ? 1 : 0, key_as_string: raw === true ? "true" : "false" }
  return { key: String(raw) }
}

const termsPart = (sql: Sql, agg: TermsAgg) =>
  Effect.gen(function* () {
    const values = yield* valuesOf(sql, resolveField(sql, agg.field, "r"), agg.field)
    const empty = { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] }
    if (values === undefined) return constantPart(sql, empty)
    if (agg.missing !== undefined && values.kind !== "string" && (values.kind !== "number" || typeof agg.missing !== "number")) {
      return yield* unsupported(`missing [${String(agg.missing)}] on the ${values.kind} field ${agg.field}`)
    }
    const key =
      agg.missing === undefined ? sql`t.k` : sql`coalesce(t.k, ${values.kind === "string" ? String(agg.missing) : Number(agg.missing)})`
    const filters = [yield* keyFilter(sql, agg.include, key), yield* keyFilter(sql, agg.exclude, key)].flatMap((filter, index) =>
      filter === undefined ? [] : [index === 0 ? filter : sql`NOT (${filter})`]
    )
    const order = yield* orderBy(sql, agg.order, agg, values.kind === "string")
    const metricValues = yield* bucketMetricValues(sql, agg)
    const finish = (value: unknown) => {
      const rows = rowsOf(value)
      const shown = rows.reduce((total, row) => total + row.doc_count, 0)
      const buckets = rows.map((row) => ({
        ...keyOf(values.kind, row.key),
        doc_count: row.doc_count,
        ...childrenOf(row, agg, metricValues)
      }))
      return Effect.succeed({
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: (rows[0]?.total ?? 0) - shown,
        buckets: cut(buckets, agg)
      })
    }
    return {
      select: yield* bucketSelect(sql, key, values.lateral, agg, metricValues, filters, order, agg.size, agg.minDocCount),
      finish
    } satisfies AggregationPart
  })

const dateHistogramPart = (sql: Sql, agg: DateHistogramAgg) =>
  Effect.gen(function* () {
    if (agg.format !== undefined) yield* checkFormat(agg.format)
    const field = resolveField(sql, agg.field, "r")
    if (field.kind !== "date" && field.kind !== "unknown")
      return yield* illegalArgument(`Field [${agg.field}] of type [${field.kind}] is not supported for aggregation [date_histogram]`)
    const missing = agg.missing === undefined ? undefined : bucketStart(yield* parseFormatted(agg.missing, agg.format), agg.interval)
    if (field.kind === "unknown" && missing === undefined) return constantPart(sql, { buckets: [] })
    const column = field.kind === "date" ? field.column : sql.literal("NULL::timestamptz")
    const start =
      agg.interval._tag === "Fixed"
        ? sql`floor(extract(epoch FROM ${column}) * 1000 / ${agg.interval.millis}) * ${agg.interval.millis}`
        : sql`extract(epoch FROM date_trunc(${agg.interval.unit}, ${column} AT TIME ZONE 'UTC')) * 1000`
    const key = missing === undefined ? sql`(${start})::float8` : sql`coalesce((${start})::float8, ${missing}::float8)`
    // Checked like a terms order; histogram buckets are ordered here, after empty ones are added.
    yield* orderBy(sql, agg.order, agg, false)
    const metricValues = yield* bucketMetricValues(sql, agg)
    const finish = (value: unknown) =>
      Effect.gen(function* () {
        const rows = rowsOf(value)
        const counted = new Map(rows.map((row) => [Number(row.key), row]))
        const keys =
          agg.minDocCount === 0 && rows.length > 0
            ? yield* allBuckets(
                rows.map((row) => Number(row.key)),
                agg
              )
            : [...counted.keys()]
        const buckets = keys.flatMap((millis) => {
          const row = counted.get(millis)
          const count = row?.doc_count ?? 0
          if (count < Math.max(agg.minDocCount, 0)) return []
          return [
            {
              key_as_string: formatDate(millis, agg.format),
              key: millis,
              doc_count: count,
              ...(row === undefined ? emptyMetrics(agg) : childrenOf(row, agg, metricValues))
            }
          ]
        })
        return { buckets: cut(sortBuckets(buckets, agg.order), agg) }
      })
    return {
      select: yield* bucketSelect(sql, key, sql`LATERAL (SELECT 1) t`, agg, metricValues, [], [sql`key ASC`], undefined),
      finish
    } satisfies AggregationPart
  })

/** Every bucket between the first and the last, empty ones included (min_doc_count 0). */
const allBuckets = (keys: ReadonlyArray<number>, agg: DateHistogramAgg) =>
  Effect.gen(function* () {
    const [first, last] = [Math.min(...keys), Math.max(...keys)]
    const all: Array<number> = []
    for (let key = first; key <= last; key = nextBucket(key, agg.interval)) {
      if (all.length >= maxBuckets) {
        return yield* new SearchRequestError({
          esType: "too_many_buckets_exception",
          reason: `Trying to create too many buckets. Must be less than or equal to: [${maxBuckets}].`,
          status: 400
        })
      }
      all.push(key)
    }
    return all
  })

const emptyMetrics = (agg: BucketChildren) =>
  Object.fromEntries(agg.metrics.map(([name, metric]) => [name, metricValue(metric, undefined, null)]))

type Bucket = { readonly key: number; readonly doc_count: number; readonly [name: string]: unknown }

const sortBuckets = (buckets: ReadonlyArray<Bucket>, order: BucketOrder) =>
  [...buckets].sort((a, b) => {
    for (const { by, order: direction } of order) {
      const value = (bucket: Bucket) =>
        by === "_key"
          ? bucket.key
          : by === "_count"
            ? bucket.doc_count
            : ((bucket[by] as { value: number | null } | undefined)?.value ?? -Infinity)
      const difference = value(a) - value(b)
      if (difference !== 0) return direction === "desc" ? -difference : difference
    }
    return a.key - b.key
  })

export const aggregationParts = (sql: Sql, aggregations: ReadonlyArray<readonly [string, Aggregation]>) =>
  Effect.forEach(aggregations, ([name, agg]) => {
    const part: Effect.Effect<AggregationPart, SearchRequestError> =
      agg._tag === "Metric" ? metricPart(sql, agg) : agg._tag === "Terms" ? termsPart(sql, agg) : dateHistogramPart(sql, agg)
    return Effect.map(part, (built) => [name, built] as const)
  })
