import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Scalar } from "./Ast.ts"
import { illegalArgument, SearchRequestError } from "./Errors.ts"
import { expandedOr } from "./ExpandedConditions.ts"
import { rangeExpansion } from "./Expansion.ts"
import type { Field } from "./Fields.ts"
import { parseDate, queryShardError } from "./Patterns.ts"
import { rowAmong, rowsHolding, type SearchedRecords } from "./SearchedRecords.ts"
import { anyOrAllQuery, isIndexableWord, phraseQuery, words } from "./Text.ts"
import { anyWordFirstPass, type Compiled, constantScore, falseCondition, type Ranking, textQuery, wordQuery } from "./TextQueries.ts"

/** SQL conditions of the field-level queries, one function per query kind, dispatched on the field's type. */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor
type TextField = Extract<Field, { kind: "text" }>

/** The predicate holds for the field's value, or for one of its values on an array field. */
export const anyValue = (sql: Sql, column: Fragment, array: boolean, predicate: (value: Fragment) => Fragment) =>
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
        return constantScore(
          sql,
          field.ignoreAbove === undefined ? where : sql`(${where} AND length(${field.column}) <= ${field.ignoreAbove})`
        )
      }
      case "number": {
        const list = yield* numbers(values, field.integer)
        if (list.length === 0) return falseCondition(sql)
        return constantScore(
          sql,
          anyValue(sql, field.column, field.array, (column) => sql`${column} IN ${sql.in(list)}`)
        )
      }
      case "date": {
        const list = yield* dates(values)
        return constantScore(sql, sql`${field.column} = ANY(${list}::timestamptz[])`)
      }
      case "boolean": {
        const list = [...new Set(yield* booleans(values))]
        return constantScore(sql, list.length === 2 ? sql`${field.column} IS NOT NULL` : sql`${field.column} = ${list[0]!}`)
      }
      case "tree":
        return constantScore(sql, sql`${field.column} && ${values.map(String)}::text[]`)
      case "routing":
        return constantScore(sql, sql`(${field.routed} AND ${field.column} IN ${sql.in(values.map(String))})`)
      case "text": {
        // A term is not analysed: it matches when it is exactly one of the field's words.
        const term = String(values.length === 1 ? values[0] : "")
        const termWords = words(field.normalize(term))
        const found = values.length === 1 && termWords.length === 1 && termWords[0] === term && isIndexableWord(term)
        // Ranked exactly: a first pass gains most on the client's searches, which are words, not terms.
        if (!found)
          return values.length === 1
            ? falseCondition(sql)
            : yield* textMatch(sql, field, values.map(String).join(" "), "or", "exact", undefined)
        return wordQuery(sql, field, term, "exact")
      }
      case "unknown":
        return falseCondition(sql)
    }
  })

/** Distinct words past which several words any of which matches are ranked in one pass (each tests its filter's bits). */
const maxWordsInFirstPass = 8

/**
 * Analysed text on a text field: its words joined by `operator`. In a first pass over documents' rows, distinct words
 * any of which matches are bounded without reading a tsvector, each word's presence found beside the record
 * (`anyWordFirstPass`).
 */
export const textMatch = (
  sql: Sql,
  field: TextField,
  text: string,
  operator: "and" | "or",
  ranking: Ranking,
  records: SearchedRecords | undefined
) => {
  const terms = words(field.normalize(text))
  const usable = terms.filter(isIndexableWord)
  if (usable.length === 0 || (operator === "and" && usable.length < terms.length)) return Effect.succeed(falseCondition(sql))
  if (usable.length === 1) return Effect.succeed(wordQuery(sql, field, usable[0]!, ranking))
  const distinct = new Set(usable).size === usable.length && usable.length <= maxWordsInFirstPass
  const stored = field.outOfRow
  if (operator === "or" && ranking === "firstPass" && distinct && records?.rowPlace !== undefined && stored !== undefined) {
    const rowPlace = records.rowPlace
    const relations = usable.map((word) =>
      rowsHolding(sql, records, stored.column, [word], (column) => sql`${column} @@ ${anyOrAllQuery([word], "or")}::tsquery`)
    )
    const present = relations.map(([rows]) => rowAmong(sql, rowPlace, rows))
    return Effect.succeed(anyWordFirstPass(sql, field, usable, present, relations))
  }
  return Effect.succeed(textQuery(sql, field, anyOrAllQuery(usable, operator)))
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

export const rangeCondition = (
  sql: Sql,
  field: Field,
  bounds: Bounds,
  records: SearchedRecords | undefined
): Effect.Effect<Compiled, SearchRequestError> =>
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
        return constantScore(
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
        return constantScore(
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
        return constantScore(
          sql,
          anyValue(sql, column, array, (value) => combine(sql`${value} COLLATE "C"`, values))
        )
      }
      case "text": {
        const values = given.map(([value]) => sql`${field.normalize(String(value))}::text COLLATE "C"`)
        return yield* expandedOr(
          sql,
          field,
          rangeExpansion(field, bounds),
          (lexeme) => combine(sql`${lexeme} COLLATE "C"`, values),
          records
        )
      }
      case "boolean": {
        const list = yield* booleans(given.map(([value]) => value))
        return constantScore(
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

export const existsCondition = (sql: Sql, field: Field): Compiled => {
  switch (field.kind) {
    case "keyword":
    case "number":
      return constantScore(sql, field.array ? sql`cardinality(${field.column}) > 0` : sql`${field.column} IS NOT NULL`)
    case "tree":
      return constantScore(sql, sql`cardinality(${field.column}) > 0`)
    case "date":
    case "boolean":
      return constantScore(sql, sql`${field.column} IS NOT NULL`)
    case "text":
      return constantScore(sql, sql`${field.source} IS NOT NULL`)
    case "routing":
      return constantScore(sql, field.routed)
    case "unknown":
      return falseCondition(sql)
  }
}
