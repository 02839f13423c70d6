import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Scalar } from "./Ast.ts"
import { illegalArgument, SearchRequestError } from "./Errors.ts"
import {
  anyWordQuery,
  type Expansion,
  fuzzyExpansion,
  lookupExpansion,
  rangeExpansion,
  regexpExpansion,
  wildcardExpansion
} from "./Expansion.ts"
import type { Field } from "./Fields.ts"
import { mapWildcardLiterals, parseDate, queryShardError, trailingStarPrefix, wildcardToLike } from "./Patterns.ts"
import { anyOrAllQuery, isIndexableWord, phraseQuery, prefixQuery, words } from "./Text.ts"
import { type Compiled, type Ranking, textQuery, wordQuery } from "./TextQueries.ts"

/** SQL conditions of the field-level queries, one function per query kind, dispatched on the field's type. */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor
type TextField = Extract<Field, { kind: "text" }>

export const falseCondition = (sql: Sql): Compiled => ({ where: sql.literal("false"), score: sql.literal("0") })
const constant = (sql: Sql, where: Fragment): Compiled => ({ where, score: sql.literal("1") })

/** The predicate holds for the field's value, or for one of its values on an array field. */
const anyValue = (sql: Sql, column: Fragment, array: boolean, predicate: (value: Fragment) => Fragment) =>
  array ? sql`EXISTS (SELECT 1 FROM unnest(${column}) AS v(x) WHERE ${predicate(sql.literal("v.x"))})` : predicate(column)

const parseFailure = (reason: string) => new SearchRequestError({ esType: "parse_exception", reason, status: 400 })

const int32 = 2 ** 31

/**
 * Values of a numeric field; a value with a decimal part, or out of the column's range, never equals a stored one.
 * `integer` fields are 32-bit, the others 64-bit (kept to what a double holds exactly).
 */
const numbers = (values: ReadonlyArray<Scalar>, integer: boolean | "any") =>
  Effect.forEach(values, (value) => {
    const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN
    if (!Number.isFinite(number)) return Effect.fail(queryShardError(`failed to create query: For input string: "${String(value)}"`))
    return Effect.succeed(number)
  }).pipe(
    Effect.map((list) =>
      list.filter((number) =>
        integer === "any" ? Math.abs(number) < 1e300 : Number.isSafeInteger(number) && (!integer || (number >= -int32 && number < int32))
      )
    )
  )

const dates = (values: ReadonlyArray<Scalar>) =>
  Effect.forEach(values, (value) => {
    const date = parseDate(value)
    return date === undefined
      ? Effect.fail(parseFailure(`failed to parse date field [${String(value)}]`))
      : Effect.succeed(date.toISOString())
  })

const booleans = (values: ReadonlyArray<Scalar>) =>
  Effect.forEach(values, (value) => {
    if (value === true || value === "true") return Effect.succeed(true)
    if (value === false || value === "false" || value === "") return Effect.succeed(false)
    return Effect.fail(illegalArgument(`Failed to parse value [${String(value)}] as only [true] or [false] are allowed.`))
  })

export const termsCondition = (
  sql: Sql,
  field: Field,
  values: ReadonlyArray<Scalar>,
  caseInsensitive: boolean
): Effect.Effect<Compiled, SearchRequestError> =>
  Effect.gen(function* () {
    if (values.length === 0) return falseCondition(sql)
    switch (field.kind) {
      case "keyword": {
        const lower = field.lowercase || caseInsensitive
        const strings = values.map((value) => (lower ? String(value).toLowerCase() : String(value)))
        const where = anyValue(sql, field.column, field.array, (column) => {
          const value = lower ? sql`lower(${column})` : column
          return strings.length === 1 ? sql`${value} = ${strings[0]!}` : sql`${value} IN ${sql.in(strings)}`
        })
        return constant(sql, field.ignoreAbove === undefined ? where : sql`(${where} AND length(${field.column}) <= ${field.ignoreAbove})`)
      }
      case "number": {
        const list = yield* numbers(values, field.integer)
        if (list.length === 0) return falseCondition(sql)
        return constant(
          sql,
          anyValue(sql, field.column, field.array, (column) => sql`${column} IN ${sql.in(list)}`)
        )
      }
      case "date": {
        const list = yield* dates(values)
        return constant(sql, sql`${field.column} = ANY(${list}::timestamptz[])`)
      }
      case "boolean": {
        const list = [...new Set(yield* booleans(values))]
        return constant(sql, list.length === 2 ? sql`${field.column} IS NOT NULL` : sql`${field.column} = ${list[0]!}`)
      }
      case "tree":
        return constant(sql, sql`${field.column} && ${values.map(String)}::text[]`)
      case "routing":
        return constant(sql, sql`(${field.routed} AND ${field.column} IN ${sql.in(values.map(String))})`)
      case "text": {
        // A term is not analysed: it matches when it is exactly one of the field's words.
        const term = String(values.length === 1 ? values[0] : "")
        const termWords = words(field.normalize(term))
        const found = values.length === 1 && termWords.length === 1 && termWords[0] === term && isIndexableWord(term)
        // Ranked exactly: a first pass gains most on the client's searches, which are words, not terms.
        if (!found)
          return values.length === 1 ? falseCondition(sql) : yield* textMatch(sql, field, values.map(String).join(" "), "or", "exact")
        return wordQuery(sql, field, term, "exact")
      }
      case "unknown":
        return falseCondition(sql)
    }
  })

/** Analysed text on a text field: its words joined by `operator`. */
export const textMatch = (sql: Sql, field: TextField, text: string, operator: "and" | "or", ranking: Ranking) => {
  const terms = words(field.normalize(text))
  const usable = terms.filter(isIndexableWord)
  if (usable.length === 0 || (operator === "and" && usable.length < terms.length)) return Effect.succeed(falseCondition(sql))
  return Effect.succeed(
    usable.length === 1 ? wordQuery(sql, field, usable[0]!, ranking) : textQuery(sql, field, anyOrAllQuery(usable, operator))
  )
}

export const phraseMatch = (sql: Sql, field: TextField, text: string, slop: number, ranking: Ranking) => {
  const terms = words(field.normalize(text))
  if (terms.length === 0 || !terms.every(isIndexableWord)) return falseCondition(sql)
  return terms.length === 1 ? wordQuery(sql, field, terms[0]!, ranking) : textQuery(sql, field, phraseQuery(terms, slop))
}

export interface Bounds {
  readonly gt?: Scalar | undefined
  readonly gte?: Scalar | undefined
  readonly lt?: Scalar | undefined
  readonly lte?: Scalar | undefined
}

const comparisons = [
  ["gt", ">"],
  ["gte", ">="],
  ["lt", "<"],
  ["lte", "<="]
] as const

export const rangeCondition = (sql: Sql, field: Field, bounds: Bounds): Effect.Effect<Compiled, SearchRequestError> =>
  Effect.gen(function* () {
    const given = comparisons.flatMap(([key, operator]) =>
      bounds[key] === undefined ? [] : [[bounds[key], sql.literal(operator)] as const]
    )
    const combine = (column: Fragment, values: ReadonlyArray<Fragment>) =>
      given.length === 0
        ? sql`${column} IS NOT NULL`
        : sql`(${sql.and(given.map(([, operator], index) => sql`${column} ${operator} ${values[index]!}`))})`
    switch (field.kind) {
      case "number": {
        const list = yield* numbers(
          given.map(([value]) => value),
          "any"
        )
        if (list.length < given.length) return falseCondition(sql)
        return constant(
          sql,
          anyValue(sql, field.column, field.array, (column) =>
            combine(
              column,
              list.map((value) => sql`${value}::float8`)
            )
          )
        )
      }
      case "date": {
        const list = yield* dates(given.map(([value]) => value))
        return constant(
          sql,
          combine(
            field.column,
            list.map((iso) => sql`${iso}::timestamptz`)
          )
        )
      }
      case "keyword":
      case "tree":
      case "routing": {
        const column = field.kind === "routing" ? field.column : field.column
        const array = field.kind === "tree" || (field.kind === "keyword" && field.array)
        const values = given.map(([value]) => sql`${String(value)}::text COLLATE "C"`)
        return constant(
          sql,
          anyValue(sql, column, array, (value) => combine(sql`${value} COLLATE "C"`, values))
        )
      }
      case "text": {
        const values = given.map(([value]) => sql`${field.normalize(String(value))}::text COLLATE "C"`)
        return yield* expandedOr(sql, field, rangeExpansion(field, bounds), (lexeme) => combine(sql`${lexeme} COLLATE "C"`, values))
      }
      case "boolean": {
        const list = yield* booleans(given.map(([value]) => value))
        return constant(
          sql,
          combine(
            sql`${field.column}::int`,
            list.map((value) => sql`${value ? 1 : 0}`)
          )
        )
      }
      case "unknown":
        return falseCondition(sql)
    }
  })

/**
 * Words of an expansion per tsquery the index is asked for: GIN tests each document it finds against the whole
 * tsquery, so the 400 words of a leading wildcard found in 29,308 of 100,000 documents took 470 ms in the index scan,
 * and 31–40 ms as tsqueries of 32 words.
 */
const wordsPerIndexedQuery = 32

/**
 * A condition on the words of a text field (wildcards, regular expressions, fuzzy terms, ranges): the words the
 * search expanded it to through the index's lexicon (Expansion.ts), matched through the tsvector's index; else, on
 * a field without a lexicon, the predicate over each record's words.
 * Each tsquery is a sub-select, whose value the planner does not see: estimated from hundreds of words, a wildcard
 * seemed to match most documents, and the search read every document's tsvector instead of the index (8 s for the
 * wildcard above). Tested on one record, the words are one tsquery, so that the tsvector is read once.
 */
const expandedOr = (sql: Sql, field: TextField, expansion: Expansion | undefined, predicate: (lexeme: Fragment) => Fragment) =>
  Effect.map(lookupExpansion(expansion), (found): Compiled => {
    if (found === undefined)
      return constant(sql, sql`EXISTS (SELECT 1 FROM unnest(${field.tsvector}) AS w WHERE ${predicate(sql.literal("w.lexeme"))})`)
    if (found.length === 0) return falseCondition(sql)
    const matches = (words: ReadonlyArray<string>) => sql`${field.tsvector} @@ (SELECT ${anyWordQuery(words)}::tsquery)`
    const pieces = Array.from({ length: Math.ceil(found.length / wordsPerIndexedQuery) }, (_, index) =>
      matches(found.slice(index * wordsPerIndexedQuery, (index + 1) * wordsPerIndexedQuery))
    )
    return pieces.length === 1 ? constant(sql, pieces[0]!) : { ...constant(sql, sql`(${sql.or(pieces)})`), test: matches(found) }
  })

export const existsCondition = (sql: Sql, field: Field): Compiled => {
  switch (field.kind) {
    case "keyword":
    case "number":
      return constant(sql, field.array ? sql`cardinality(${field.column}) > 0` : sql`${field.column} IS NOT NULL`)
    case "tree":
      return constant(sql, sql`cardinality(${field.column}) > 0`)
    case "date":
    case "boolean":
      return constant(sql, sql`${field.column} IS NOT NULL`)
    case "text":
      return constant(sql, sql`${field.source} IS NOT NULL`)
    case "routing":
      return constant(sql, field.routed)
    case "unknown":
      return falseCondition(sql)
  }
}

const notOnNumbers = (kind: string, query: string) =>
  Effect.fail(illegalArgument(`Can only use ${query} queries on keyword and text fields - not on a field of type [${kind}]`))

/** The first string past every string that starts with `prefix`, in code point order (UTF-8's byte order). */
const prefixSuccessor = (prefix: string): string | undefined => {
  const points = [...prefix]
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!
    if (last < 0x10ffff) return points.join("") + String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1)
  }
  return undefined
}

/**
 * Values starting with `prefix`, as a range of byte order, which the path's pattern index holds exactly. `LIKE 'pre%'`
 * is read from that index as the same range but tested again on each row, and in an OR with the content's words (a
 * prefix over the default fields) the whole OR was then tested on every match, reading each one's tsvector: the
 * statement of `wul*` on 100,000 documents took 825 ms, 660 with the range.
 */
export const startsWith = (sql: Sql, column: Fragment, prefix: string) => {
  const upper = prefixSuccessor(prefix)
  return upper === undefined ? sql`${column} ~>=~ ${prefix}` : sql`(${column} ~>=~ ${prefix} AND ${column} ~<~ ${upper})`
}

export const wildcardCondition = (
  sql: Sql,
  field: Field,
  pattern: string,
  caseInsensitive: boolean
): Effect.Effect<Compiled, SearchRequestError> => {
  if (pattern === "*") return Effect.succeed(existsCondition(sql, field))
  switch (field.kind) {
    case "keyword":
    case "tree":
    case "routing": {
      const lower = caseInsensitive || (field.kind === "keyword" && field.lowercase)
      const array = field.kind === "tree" || (field.kind === "keyword" && field.array)
      const prefix = trailingStarPrefix(pattern)
      if (field.kind === "keyword" && !lower && !array && prefix !== undefined)
        return Effect.succeed(constant(sql, startsWith(sql, field.column, prefix)))
      const like = wildcardToLike(lower ? pattern.toLowerCase() : pattern)
      return Effect.succeed(
        constant(
          sql,
          anyValue(sql, field.column, array, (value) => (lower ? sql`lower(${value}) LIKE ${like}` : sql`${value} LIKE ${like}`))
        )
      )
    }
    case "text": {
      const normalized = mapWildcardLiterals(pattern, field.normalize)
      const prefix = trailingStarPrefix(normalized)
      if (prefix !== undefined && words(prefix).length === 1 && words(prefix)[0] === prefix && isIndexableWord(prefix)) {
        return Effect.succeed(textQuery(sql, field, prefixQuery(prefix)))
      }
      const like = wildcardToLike(normalized)
      return expandedOr(sql, field, wildcardExpansion(field, pattern), (lexeme) => sql`${lexeme} LIKE ${like}`)
    }
    case "unknown":
      return Effect.succeed(falseCondition(sql))
    default:
      return notOnNumbers(field.kind, "wildcard")
  }
}

export const regexpCondition = (
  sql: Sql,
  field: Field,
  pattern: string,
  caseInsensitive: boolean
): Effect.Effect<Compiled, SearchRequestError> => {
  const operator = sql.literal(caseInsensitive ? "~*" : "~")
  switch (field.kind) {
    case "keyword":
    case "tree":
    case "routing": {
      const array = field.kind === "tree" || (field.kind === "keyword" && field.array)
      return Effect.succeed(
        constant(
          sql,
          anyValue(sql, field.column, array, (value) => sql`${value} ${operator} ${pattern}`)
        )
      )
    }
    case "text":
      return expandedOr(sql, field, regexpExpansion(field, pattern, caseInsensitive), (lexeme) => sql`${lexeme} ${operator} ${pattern}`)
    case "unknown":
      return Effect.succeed(falseCondition(sql))
    default:
      return notOnNumbers(field.kind, "regexp")
  }
}

export const fuzzyCondition = (sql: Sql, field: Field, value: string, distance: number): Effect.Effect<Compiled, SearchRequestError> => {
  if (distance === 0) return termsCondition(sql, field, [value], false)
  const close = (candidate: Fragment, term: string) => sql`quarry_edit_distance(${candidate}, ${term}, ${distance}) <= ${distance}`
  switch (field.kind) {
    case "keyword":
    case "tree":
    case "routing": {
      const array = field.kind === "tree" || (field.kind === "keyword" && field.array)
      const term = field.kind === "keyword" && field.lowercase ? value.toLowerCase() : value
      // Within `distance` edits, the lengths differ by `distance` at most: a condition the length indexes of the
      // path and mentions serve, so that the edit distance is computed on a few values instead of every record's.
      const lengthClose = (candidate: Fragment) => sql`length(${candidate}) BETWEEN ${term.length - distance} AND ${term.length + distance}`
      return Effect.succeed(
        constant(
          sql,
          anyValue(sql, field.column, array, (candidate) => sql`(${lengthClose(candidate)} AND ${close(candidate, term)})`)
        )
      )
    }
    case "text": {
      const term = field.normalize(value)
      if (!isIndexableWord(term)) return Effect.succeed(falseCondition(sql))
      return expandedOr(sql, field, fuzzyExpansion(field, value, distance), (lexeme) => close(lexeme, term))
    }
    case "unknown":
      return Effect.succeed(falseCondition(sql))
    default:
      return termsCondition(sql, field, [value], false)
  }
}
