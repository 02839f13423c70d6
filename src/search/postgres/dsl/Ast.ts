/**
 * The typed form of an ES request body once parsed: queries, aggregations, sort, source filtering and
 * highlighting. `query_string` is parsed into the same query nodes as the JSON DSL.
 */

export type Scalar = string | number | boolean

/** `minimum_should_match`: a count, or a percentage of the should clauses (negative values count from the end). */
export type MinimumShouldMatch = { readonly count: number } | { readonly percent: number }

export type Query =
  | { readonly _tag: "MatchAll" }
  | { readonly _tag: "MatchNone" }
  | {
      readonly _tag: "Bool"
      readonly must: ReadonlyArray<Query>
      readonly filter: ReadonlyArray<Query>
      readonly should: ReadonlyArray<Query>
      readonly mustNot: ReadonlyArray<Query>
      readonly minimumShouldMatch: MinimumShouldMatch | undefined
    }
  /** Exact value, not analysed (term, terms, and match on a non-text field). */
  | { readonly _tag: "Terms"; readonly field: string; readonly values: ReadonlyArray<Scalar>; readonly caseInsensitive: boolean }
  /** Analysed text: tokens combined with `operator` on text fields, the whole text as one term elsewhere. */
  | { readonly _tag: "Match"; readonly field: string; readonly text: string; readonly operator: "and" | "or" }
  | { readonly _tag: "Phrase"; readonly field: string; readonly text: string; readonly slop: number }
  | {
      readonly _tag: "Range"
      readonly field: string
      readonly gt?: Scalar | undefined
      readonly gte?: Scalar | undefined
      readonly lt?: Scalar | undefined
      readonly lte?: Scalar | undefined
    }
  | { readonly _tag: "Exists"; readonly field: string }
  | { readonly _tag: "Ids"; readonly values: ReadonlyArray<string> }
  /** Lucene wildcard: `*` any characters, `?` one character. */
  | { readonly _tag: "Wildcard"; readonly field: string; readonly pattern: string; readonly caseInsensitive: boolean }
  /** A regular expression over whole terms, already translated to a POSIX pattern anchored at both ends. */
  | { readonly _tag: "Regexp"; readonly field: string; readonly pattern: string; readonly caseInsensitive: boolean }
  | { readonly _tag: "Fuzzy"; readonly field: string; readonly value: string; readonly distance: number }
  | { readonly _tag: "HasChild"; readonly type: string; readonly query: Query }
  | { readonly _tag: "HasParent"; readonly parentType: string; readonly query: Query }
  | { readonly _tag: "ParentId"; readonly type: string; readonly id: string }

export const matchAll: Query = { _tag: "MatchAll" }
export const matchNone: Query = { _tag: "MatchNone" }

export const bool = (parts: {
  readonly must?: ReadonlyArray<Query>
  readonly filter?: ReadonlyArray<Query>
  readonly should?: ReadonlyArray<Query>
  readonly mustNot?: ReadonlyArray<Query>
  readonly minimumShouldMatch?: MinimumShouldMatch | undefined
}): Query => ({
  _tag: "Bool",
  must: parts.must ?? [],
  filter: parts.filter ?? [],
  should: parts.should ?? [],
  mustNot: parts.mustNot ?? [],
  minimumShouldMatch: parts.minimumShouldMatch
})

export type SortOrder = "asc" | "desc"

export type SortClause =
  | { readonly _tag: "Score"; readonly order: SortOrder }
  | { readonly _tag: "Doc"; readonly order: SortOrder }
  | {
      readonly _tag: "Field"
      readonly field: string
      readonly order: SortOrder
      readonly missingFirst: boolean
      readonly unmappedType: string | undefined
    }
  /** `doc['offsets'].size()`: the number of offsets of a named entity. */
  | { readonly _tag: "OffsetsCount"; readonly order: SortOrder }
  /** `params.order.indexOf(doc._id.value)`: the position of the id in a given list. */
  | { readonly _tag: "IdPosition"; readonly ids: ReadonlyArray<string>; readonly order: SortOrder }

/** `_source` filtering: nothing, or the paths kept and removed (globs over dotted paths). */
export type SourceFilter =
  | { readonly _tag: "None" }
  | { readonly _tag: "Filter"; readonly includes: ReadonlyArray<string>; readonly excludes: ReadonlyArray<string> }

export interface HighlightField {
  readonly field: string
  readonly preTag: string
  readonly postTag: string
  readonly fragmentSize: number
  readonly numberOfFragments: number
  readonly noMatchSize: number
  readonly maxAnalyzedOffset: number | undefined
}

export type MetricKind = "sum" | "max" | "min" | "avg" | "cardinality" | "value_count"

export interface MetricAgg {
  readonly _tag: "Metric"
  readonly kind: MetricKind
  readonly field: string
}

export interface BucketSort {
  readonly from: number
  readonly size: number | undefined
}

/** Order of buckets: by count, key, or a metric sub-aggregation, in sequence. */
export type BucketOrder = ReadonlyArray<{ readonly by: string; readonly order: SortOrder }>

export interface BucketChildren {
  readonly metrics: ReadonlyArray<readonly [string, MetricAgg]>
  readonly bucketSort: readonly [string, BucketSort] | undefined
}

export interface TermsAgg extends BucketChildren {
  readonly _tag: "Terms"
  readonly field: string
  readonly size: number
  readonly minDocCount: number
  readonly order: BucketOrder
  readonly include: string | ReadonlyArray<string> | undefined
  readonly exclude: string | ReadonlyArray<string> | undefined
  readonly missing: Scalar | undefined
}

export type Interval =
  | { readonly _tag: "Calendar"; readonly unit: "year" | "quarter" | "month" | "week" | "day" | "hour" | "minute" | "second" }
  | { readonly _tag: "Fixed"; readonly millis: number }

export interface DateHistogramAgg extends BucketChildren {
  readonly _tag: "DateHistogram"
  readonly field: string
  readonly interval: Interval
  readonly format: string | undefined
  readonly missing: string | undefined
  readonly minDocCount: number
  readonly order: BucketOrder
}

export type Aggregation = MetricAgg | TermsAgg | DateHistogramAgg

export interface SearchRequest {
  readonly query: Query
  readonly from: number
  readonly size: number
  readonly sort: ReadonlyArray<SortClause> | undefined
  readonly source: SourceFilter | false
  readonly highlight: ReadonlyArray<HighlightField>
  /** true: exact; false: none; a number: counted up to it. */
  readonly trackTotalHits: boolean | number
  readonly aggregations: ReadonlyArray<readonly [string, Aggregation]>
}
