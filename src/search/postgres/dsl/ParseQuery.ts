import { Effect, ParseResult, Schema } from "effect"
import { bool, matchAll, matchNone, type MinimumShouldMatch, type Query, type Scalar } from "./Ast.ts"
import { illegalArgument, maxNestedDepth, parsingError, type SearchRequestError, tooDeeplyNested, unsupported } from "./Errors.ts"
import type { FuzzyQuery } from "./Expansion.ts"
import { mapWildcardLiterals, translateRegexp } from "./Patterns.ts"
import {
  BoolBody,
  BoostOnly,
  ConstantScoreBody,
  ExistsBody,
  FuzzyOptions,
  HasChildBody,
  HasParentBody,
  IdsBody,
  MatchOptions,
  MultiMatchBody,
  ParentIdBody,
  PhraseOptions,
  PrefixOptions,
  QueryStringBody,
  RangeBody,
  RegexpOptions,
  ScalarValue,
  ScalarValues,
  TermOptions,
  WildcardBody
} from "./QueryBodies.ts"
import { parseQueryString } from "./QueryString.ts"

/** The JSON query DSL into query nodes; every body is checked with Schema first. */

export const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown, what: string): Effect.Effect<A, SearchRequestError> =>
  Schema.decodeUnknown(schema, { onExcessProperty: "error" })(value).pipe(
    Effect.mapError((error) => parsingError(`[${what}] ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
  )

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `{"<field>": value}` of term, match, range…: the one field and its value (boost and _name aside). */
const fieldAndValue = (value: unknown, what: string) =>
  Effect.gen(function* () {
    if (!isObject(value)) return yield* parsingError(`[${what}] query malformed, no start_object after query name`)
    const keys = Object.keys(value).filter((key) => key !== "boost" && key !== "_name")
    if (keys.length !== 1) return yield* parsingError(`[${what}] query doesn't support multiple fields, found [${keys.join(", ")}]`)
    return [keys[0]!, value[keys[0]!]] as const
  })

/** The value of a field-level query: the bare value, or an object with it under `key` beside options. */
const valueOrObject =
  <A, I>(what: string, key: string, options: Schema.Schema<A, I>) =>
  (value: unknown): Effect.Effect<{ readonly value: Scalar; readonly options: Partial<A> }, SearchRequestError> =>
    Effect.gen(function* () {
      if (!isObject(value)) return { value: yield* decode(ScalarValue, value, what), options: {} }
      const { [key]: inner, ...rest } = value
      if (inner === undefined) return yield* parsingError(`[${what}] requires [${key}]`)
      return { value: yield* decode(ScalarValue, inner, what), options: yield* decode(options, rest, what) }
    })

const clauses = (value: unknown, depth: number, what: string) =>
  value === undefined
    ? Effect.succeed([] as ReadonlyArray<Query>)
    : Array.isArray(value)
      ? Effect.forEach(value, (item) => parseQueryAt(item, depth + 1))
      : isObject(value)
        ? Effect.map(parseQueryAt(value, depth + 1), (query) => [query])
        : Effect.fail(parsingError(`[bool] ${what} must be an object or an array of objects`))

const parseMinimumShouldMatch = (value: unknown): Effect.Effect<MinimumShouldMatch | undefined, SearchRequestError> => {
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value === "number" && Number.isInteger(value)) return Effect.succeed({ count: value })
  if (typeof value === "string") {
    const text = value.trim()
    if (/^-?\d+$/.test(text)) return Effect.succeed({ count: Number(text) })
    if (/^-?\d+(\.\d+)?%$/.test(text)) return Effect.succeed({ percent: Number(text.slice(0, -1)) })
    if (text.includes("<")) return Effect.fail(unsupported("minimum_should_match combination"))
  }
  return Effect.fail(parsingError(`[bool] invalid minimum_should_match [${String(value)}]`))
}

/** `title^2` in a fields list: the boost changes scores only, which this engine does not weigh. */
const withoutBoost = (field: string) => field.replace(/\^[\d.]+$/, "")

const nonNull = (value: Scalar | null | undefined) => (value === null ? undefined : value)

const operatorOf = (value: string | undefined): "and" | "or" => (value?.toLowerCase() === "and" ? "and" : "or")

/** Known ES queries the engine does not evaluate: a clear 400 naming them (other names are unknown queries). */
const unsupportedQueries = new Set([
  "nested",
  "function_score",
  "script",
  "script_score",
  "more_like_this",
  "geo_distance",
  "geo_bounding_box",
  "geo_shape",
  "geo_polygon",
  "span_term",
  "span_near",
  "span_or",
  "span_not",
  "span_first",
  "span_multi",
  "span_containing",
  "span_within",
  "field_masking_span",
  "knn",
  "percolate",
  "distance_feature",
  "rank_feature",
  "pinned",
  "wrapper",
  "intervals",
  "terms_set",
  "combined_fields",
  "simple_query_string",
  "dis_max",
  "boosting",
  "match_bool_prefix",
  "match_phrase_prefix",
  "shape",
  "semantic",
  "sparse_vector",
  "text_expansion",
  "type"
])

const parseQueryAt = (json: unknown, depth: number): Effect.Effect<Query, SearchRequestError> =>
  Effect.gen(function* () {
    if (depth > maxNestedDepth) return yield* tooDeeplyNested()
    if (!isObject(json)) return yield* parsingError("query malformed, must start with start_object")
    const names = Object.keys(json)
    if (names.length !== 1) return yield* parsingError(`[_na] query malformed, expected one query name, found [${names.join(", ")}]`)
    const name = names[0]!
    const body = json[name]
    switch (name) {
      case "match_all":
        yield* decode(BoostOnly, body, name)
        return matchAll
      case "match_none":
        yield* decode(BoostOnly, body, name)
        return matchNone
      case "bool": {
        const parts = yield* decode(BoolBody, body, name)
        return bool({
          must: yield* clauses(parts.must, depth, "must"),
          filter: yield* clauses(parts.filter, depth, "filter"),
          should: yield* clauses(parts.should, depth, "should"),
          mustNot: yield* clauses(parts.must_not, depth, "must_not"),
          minimumShouldMatch: yield* parseMinimumShouldMatch(parts.minimum_should_match)
        })
      }
      case "constant_score": {
        const parts = yield* decode(ConstantScoreBody, body, name)
        return bool({ filter: [yield* parseQueryAt(parts.filter, depth + 1)] })
      }
      case "match": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "query", MatchOptions)(value)
        if (parts.options.minimum_should_match !== undefined) return yield* unsupported("match minimum_should_match")
        return { _tag: "Match", field, text: String(parts.value), operator: operatorOf(parts.options.operator) } satisfies Query
      }
      case "match_phrase": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "query", PhraseOptions)(value)
        return { _tag: "Phrase", field, text: String(parts.value), slop: Math.max(0, parts.options.slop ?? 0) } satisfies Query
      }
      case "multi_match": {
        const parts = yield* decode(MultiMatchBody, body, name)
        const operator = operatorOf(parts.operator)
        return bool({
          should: parts.fields.map((field): Query => ({ _tag: "Match", field: withoutBoost(field), text: String(parts.query), operator }))
        })
      }
      case "term": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "value", TermOptions)(value)
        return { _tag: "Terms", field, values: [parts.value], caseInsensitive: parts.options.case_insensitive ?? false } satisfies Query
      }
      case "terms": {
        const [field, value] = yield* fieldAndValue(body, name)
        if (isObject(value)) return yield* unsupported("terms lookup")
        const values = yield* decode(ScalarValues, value, name)
        return { _tag: "Terms", field, values, caseInsensitive: false } satisfies Query
      }
      case "range": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* decode(RangeBody, value, name)
        if (
          parts.format !== undefined &&
          !/^(strict_date_optional_time|date_optional_time|epoch_millis|yyyy(-MM(-dd)?)?)(\|\|.*)?$/.test(parts.format)
        ) {
          return yield* unsupported(`range format ${parts.format}`)
        }
        return {
          _tag: "Range",
          field,
          gt: nonNull(parts.gt),
          gte: nonNull(parts.gte),
          lt: nonNull(parts.lt),
          lte: nonNull(parts.lte)
        } satisfies Query
      }
      case "exists": {
        const parts = yield* decode(ExistsBody, body, name)
        return { _tag: "Exists", field: parts.field } satisfies Query
      }
      case "ids": {
        const parts = yield* decode(IdsBody, body, name)
        return { _tag: "Ids", values: parts.values.map(String) } satisfies Query
      }
      case "prefix": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "value", PrefixOptions)(value)
        const pattern = `${mapWildcardLiterals(
          String(parts.value).replace(/[\\*?]/g, (c) => `\\${c}`),
          (text) => text
        )}*`
        return { _tag: "Wildcard", field, pattern, caseInsensitive: parts.options.case_insensitive ?? false } satisfies Query
      }
      case "wildcard": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = isObject(value)
          ? yield* decode(WildcardBody, value, name)
          : { value: yield* decode(ScalarValue, value, name), wildcard: undefined, case_insensitive: undefined }
        const pattern = parts.value ?? parts.wildcard
        if (pattern === undefined) return yield* parsingError("[wildcard] requires a value")
        return { _tag: "Wildcard", field, pattern: String(pattern), caseInsensitive: parts.case_insensitive ?? false } satisfies Query
      }
      case "regexp": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "value", RegexpOptions)(value)
        const flags = parts.options.flags
        if (flags !== undefined && !/^(ALL|NONE)?$/.test(flags)) return yield* unsupported(`regexp flags ${flags}`)
        const pattern = yield* translateRegexp(String(parts.value))
        return { _tag: "Regexp", field, pattern, caseInsensitive: parts.options.case_insensitive ?? false } satisfies Query
      }
      case "fuzzy": {
        const [field, value] = yield* fieldAndValue(body, name)
        const parts = yield* valueOrObject(name, "value", FuzzyOptions)(value)
        const given = parts.options.fuzziness
        const fuzziness = given === undefined || String(given).toUpperCase().startsWith("AUTO") ? undefined : Number(given)
        if (fuzziness !== undefined && !(fuzziness >= 0 && fuzziness <= 2))
          return yield* illegalArgument(`[fuzzy] invalid fuzziness [${String(given)}]`)
        const maxExpansions = parts.options.max_expansions
        if (maxExpansions !== undefined && maxExpansions <= 0) return yield* illegalArgument("[max_expansions] must be greater than 0")
        const text = String(parts.value)
        const fuzzy: FuzzyQuery = {
          _tag: "Fuzzy",
          field,
          value: text,
          distance: fuzziness ?? (text.length <= 2 ? 0 : text.length <= 5 ? 1 : 2),
          maxExpansions
        }
        return fuzzy
      }
      case "query_string": {
        const parts = yield* decode(QueryStringBody, body, name)
        const fields = (
          parts.fields ?? (parts.default_field === undefined || parts.default_field === "*" ? undefined : [parts.default_field])
        )?.map(withoutBoost)
        return yield* parseQueryString({ query: parts.query, fields, defaultOperator: operatorOf(parts.default_operator) })
      }
    }
    return yield* parseJoinQuery(name, body, depth)
  })

/** The parent/child queries over the join between documents and their named entities or duplicates. */
const parseJoinQuery = (name: string, body: unknown, depth: number): Effect.Effect<Query, SearchRequestError> =>
  Effect.gen(function* () {
    if (isObject(body) && "inner_hits" in body) return yield* unsupported("inner_hits")
    switch (name) {
      case "has_child": {
        const parts = yield* decode(HasChildBody, body, name)
        return { _tag: "HasChild", type: parts.type, query: yield* parseQueryAt(parts.query, depth + 1) } satisfies Query
      }
      case "has_parent": {
        const parts = yield* decode(HasParentBody, body, name)
        return { _tag: "HasParent", parentType: parts.parent_type, query: yield* parseQueryAt(parts.query, depth + 1) } satisfies Query
      }
      case "parent_id": {
        const parts = yield* decode(ParentIdBody, body, name)
        return { _tag: "ParentId", type: parts.type, id: parts.id } satisfies Query
      }
    }
    if (unsupportedQueries.has(name)) return yield* unsupported(name)
    return yield* parsingError(`unknown query [${name}]`)
  })

export const parseQuery = (json: unknown) => parseQueryAt(json, 0)

export { isObject }
