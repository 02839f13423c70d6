import { Schema } from "effect"

/**
 * The bodies of the JSON query DSL, as Schema checks them. Each is built once, here: a schema built for each request
 * was compiled again by each decode (a parser is kept per schema), which with the garbage it left took 0.1-0.2 ms of
 * every client search's parsing (0.45-0.82 against 0.36-0.59 ms).
 */

export const ScalarValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean)
export const ScalarValues = Schema.Array(ScalarValue)
const Boost = { boost: Schema.optional(Schema.Number), _name: Schema.optional(Schema.String) }
const Operator = Schema.optional(Schema.Union(Schema.Literal("and", "or", "AND", "OR", "And", "Or")))

export const BoostOnly = Schema.Struct(Boost)

export const BoolBody = Schema.Struct({
  must: Schema.optional(Schema.Unknown),
  filter: Schema.optional(Schema.Unknown),
  should: Schema.optional(Schema.Unknown),
  must_not: Schema.optional(Schema.Unknown),
  minimum_should_match: Schema.optional(Schema.Unknown),
  adjust_pure_negative: Schema.optional(Schema.Boolean),
  ...Boost
})

export const ConstantScoreBody = Schema.Struct({ filter: Schema.Unknown, ...Boost })

export const QueryStringBody = Schema.Struct({
  query: Schema.String,
  fields: Schema.optional(Schema.Array(Schema.String)),
  default_field: Schema.optional(Schema.String),
  default_operator: Operator,
  analyze_wildcard: Schema.optional(Schema.Boolean),
  lenient: Schema.optional(Schema.Boolean),
  ...Boost
})

export const MultiMatchBody = Schema.Struct({
  query: ScalarValue,
  fields: Schema.Array(Schema.String),
  operator: Operator,
  type: Schema.optional(Schema.Literal("best_fields", "most_fields")),
  ...Boost
})

export const RangeBody = Schema.Struct({
  gt: Schema.optional(Schema.NullOr(ScalarValue)),
  gte: Schema.optional(Schema.NullOr(ScalarValue)),
  lt: Schema.optional(Schema.NullOr(ScalarValue)),
  lte: Schema.optional(Schema.NullOr(ScalarValue)),
  format: Schema.optional(Schema.String),
  time_zone: Schema.optional(Schema.Literal("UTC", "Z", "+00:00")),
  ...Boost
})

export const ExistsBody = Schema.Struct({ field: Schema.String, ...Boost })
export const IdsBody = Schema.Struct({ values: ScalarValues, ...Boost })

// The options beside the value of a field-level query (`{"<field>": {"query": …, options}}`).
export const MatchOptions = Schema.Struct({ operator: Operator, minimum_should_match: Schema.optional(Schema.Unknown), ...Boost })
export const PhraseOptions = Schema.Struct({ slop: Schema.optional(Schema.Int), ...Boost })
export const TermOptions = Schema.Struct({ case_insensitive: Schema.optional(Schema.Boolean), ...Boost })
export const PrefixOptions = Schema.Struct({
  case_insensitive: Schema.optional(Schema.Boolean),
  rewrite: Schema.optional(Schema.String),
  ...Boost
})
export const RegexpOptions = Schema.Struct({
  flags: Schema.optional(Schema.String),
  case_insensitive: Schema.optional(Schema.Boolean),
  max_determinized_states: Schema.optional(Schema.Int),
  rewrite: Schema.optional(Schema.String),
  ...Boost
})
export const FuzzyOptions = Schema.Struct({
  fuzziness: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  max_expansions: Schema.optional(Schema.Int),
  ...Boost
})

export const WildcardBody = Schema.Struct({
  value: Schema.optional(ScalarValue),
  wildcard: Schema.optional(ScalarValue),
  case_insensitive: Schema.optional(Schema.Boolean),
  rewrite: Schema.optional(Schema.String),
  ...Boost
})

export const HasChildBody = Schema.Struct({
  type: Schema.String,
  query: Schema.Unknown,
  score_mode: Schema.optional(Schema.Literal("none", "avg", "max", "min", "sum")),
  ignore_unmapped: Schema.optional(Schema.Boolean),
  ...Boost
})

export const HasParentBody = Schema.Struct({
  parent_type: Schema.String,
  query: Schema.Unknown,
  score: Schema.optional(Schema.Boolean),
  ignore_unmapped: Schema.optional(Schema.Boolean),
  ...Boost
})

export const ParentIdBody = Schema.Struct({
  type: Schema.String,
  id: Schema.String,
  ignore_unmapped: Schema.optional(Schema.Boolean),
  ...Boost
})
