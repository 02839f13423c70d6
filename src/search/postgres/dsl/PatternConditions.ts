import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import { illegalArgument, type SearchRequestError } from "./Errors.ts"
import { expandedOr } from "./ExpandedConditions.ts"
import { fuzzyExpansion, regexpExpansion, wildcardExpansion } from "./Expansion.ts"
import type { Field } from "./Fields.ts"
import { anyValue, existsCondition, termsCondition } from "./Leaves.ts"
import { mapWildcardLiterals, trailingStarPrefix, wildcardToLike } from "./Patterns.ts"
import { beside, type SearchedRecords, valueAmong } from "./SearchedRecords.ts"
import { isIndexableWord, prefixQuery, words } from "./Text.ts"
import { type Compiled, constantScore, falseCondition, textQuery } from "./TextQueries.ts"

/** Conditions of the pattern queries (wildcard, regexp, fuzzy) on every kind of field. */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor

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
  caseInsensitive: boolean,
  records: SearchedRecords | undefined
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
        return Effect.succeed(constantScore(sql, startsWith(sql, field.column, prefix)))
      const like = wildcardToLike(lower ? pattern.toLowerCase() : pattern)
      return Effect.succeed(
        constantScore(
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
      return expandedOr(sql, field, wildcardExpansion(field, pattern), (lexeme) => sql`${lexeme} LIKE ${like}`, records)
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
  caseInsensitive: boolean,
  records: SearchedRecords | undefined
): Effect.Effect<Compiled, SearchRequestError> => {
  const operator = sql.literal(caseInsensitive ? "~*" : "~")
  switch (field.kind) {
    case "keyword":
    case "tree":
    case "routing": {
      const array = field.kind === "tree" || (field.kind === "keyword" && field.array)
      return Effect.succeed(
        constantScore(
          sql,
          anyValue(sql, field.column, array, (value) => sql`${value} ${operator} ${pattern}`)
        )
      )
    }
    case "text":
      return expandedOr(
        sql,
        field,
        regexpExpansion(field, pattern, caseInsensitive),
        (lexeme) => sql`${lexeme} ${operator} ${pattern}`,
        records
      )
    case "unknown":
      return Effect.succeed(falseCondition(sql))
    default:
      return notOnNumbers(field.kind, "regexp")
  }
}

/**
 * Within `distance` edits. On a single-valued keyword, where the searched records are known, the values within it are
 * found once, so that the condition is one the column's index answers exactly (see `valueAmong`); `fieldAt` is the field
 * for another alias.
 */
export const fuzzyCondition = (
  sql: Sql,
  field: Field,
  value: string,
  distance: number,
  records: SearchedRecords | undefined,
  fieldAt: (alias: string) => Field
): Effect.Effect<Compiled, SearchRequestError> => {
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
      const within = (candidate: Fragment) => sql`(${lengthClose(candidate)} AND ${close(candidate, term)})`
      const besideField = fieldAt(beside)
      if (records === undefined || array || besideField.kind !== "keyword")
        return Effect.succeed(constantScore(sql, anyValue(sql, field.column, array, within)))
      // Tested on a record too: the values found are few (a whole path within a few edits), so comparing them costs
      // less than the length and the distance for each term and match.
      return Effect.succeed(constantScore(sql, valueAmong(sql, records, field.column, besideField.column, within)))
    }
    case "text": {
      const term = field.normalize(value)
      if (!isIndexableWord(term)) return Effect.succeed(falseCondition(sql))
      return expandedOr(sql, field, fuzzyExpansion(field, value, distance), (lexeme) => close(lexeme, term), records)
    }
    case "unknown":
      return Effect.succeed(falseCondition(sql))
    default:
      return termsCondition(sql, field, [value], false)
  }
}
