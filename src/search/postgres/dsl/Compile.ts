import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { MinimumShouldMatch, Query, Scalar } from "./Ast.ts"
import { illegalArgument, type SearchRequestError } from "./Errors.ts"
import { type Field, resolveField } from "./Fields.ts"
import { existsCondition, phraseMatch, rangeCondition, termsCondition, textMatch } from "./Leaves.ts"
import { fuzzyCondition, regexpCondition, wildcardCondition } from "./PatternConditions.ts"
import type { SearchedRecords } from "./SearchedRecords.ts"
import { isIndexableWord, words } from "./Text.ts"
import { type Compiled, falseCondition, type Ranking } from "./TextQueries.ts"

/**
 * Query nodes to a SQL condition over a `search_records` row and its relevance. Values are always parameters;
 * only column names of the mapping and operators are literal SQL.
 */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor

/** The record types of the join field: a Document is the parent of its NamedEntities and Duplicates. */
const childTypes = ["NamedEntity", "Duplicate"]
const parentTypes = ["Document"]

const trueCondition = (sql: Sql): Compiled => ({ where: sql.literal("true"), score: sql.literal("1") })

/** How many should clauses must match: ES's default is one without must/filter, none beside them. */
const requiredShould = (minimum: MinimumShouldMatch | undefined, count: number, hasRequired: boolean) => {
  if (count === 0) return 0
  if (minimum === undefined) return hasRequired ? 0 : 1
  const raw = "count" in minimum ? minimum.count : Math.trunc((count * minimum.percent) / 100)
  return Math.max(0, raw < 0 ? count + raw : raw)
}

/** Conjunction and disjunction, always parenthesised (the library's leave a single clause bare). */
export const allOf = (sql: Sql, clauses: ReadonlyArray<Fragment>) =>
  clauses.length === 0 ? sql.literal("true") : sql`(${sql.and(clauses)})`
export const anyOf = (sql: Sql, clauses: ReadonlyArray<Fragment>) =>
  clauses.length === 0 ? sql.literal("false") : sql`(${sql.or(clauses)})`

/** A clause's condition as tested on one record. */
const testOf = (clause: Compiled) => clause.test ?? clause.where

/** Should clauses of which one holds for every record scored, beyond which their scores do not test each other's conditions. */
const maxClausesTestedTogether = 8

const sum = (sql: Sql, scores: ReadonlyArray<Fragment>) => (scores.length === 0 ? sql.literal("0") : sql.join(" + ", true)(scores))

/**
 * A compiled query whose score is already 0 wherever its condition does not hold, so a parent adds it without a
 * `CASE WHEN <condition>` guard. The guard evaluated the condition a second time for every matched record: on a
 * text field that reads (and decompresses) the record's tsvector again, several times a record with nested bools.
 */
interface Scored extends Compiled {
  readonly zeroUnlessMatched: boolean
}

const scored = (compiled: Compiled, zeroUnlessMatched = false): Scored => ({ ...compiled, zeroUnlessMatched })

/**
 * Whether a text query becomes a tsquery of one word or of words joined by `|`: `ts_rank` gives such a query 0 on a
 * tsvector holding none of its words (and 1e-20, not 0, when only some words of an `&` or a phrase are there).
 */
const isAnyWordQuery = (query: Query, field: Field) => {
  if (field.kind !== "text") return false
  const usable = (text: string) => words(field.normalize(text)).filter(isIndexableWord).length
  switch (query._tag) {
    case "Match":
      return query.operator === "or" || usable(query.text) <= 1
    case "Phrase":
      return usable(query.text) <= 1
    case "Terms":
      return true
    default:
      return false
  }
}

/**
 * Exact values of a field: on an array keyword field (tags, nerTags) an overlap with the values, which the field's GIN
 * index serves (tags through their lowercased labels, as the lowercase normalizer compares them); elsewhere the
 * field's own condition.
 */
const exactValues = (sql: Sql, field: Field, values: ReadonlyArray<Scalar>, caseInsensitive: boolean) => {
  if (field.kind !== "keyword" || !field.array || values.length === 0) return termsCondition(sql, field, values, caseInsensitive)
  const lower = field.lowercase || caseInsensitive
  const strings = values.map((value) => (lower ? String(value).toLowerCase() : String(value)))
  const column = lower ? sql`quarry_lower_array(${field.column})` : field.column
  return Effect.succeed<Compiled>({ where: sql`${column} && ${strings}::text[]`, score: sql.literal("1") })
}

/**
 * A leaf on a field whose tsvector is stored out of the row (content): where it is known to hold, its score needs no
 * guard, which would decompress the tsvector again for every record (a wildcard's constant score did).
 */
const leafOn = (field: Field, compiled: Compiled): Compiled =>
  field.kind === "text" && field.outOfRow !== undefined && compiled.scoreWhenMatched === undefined
    ? { ...compiled, scoreWhenMatched: compiled.score }
    : compiled

/**
 * A text leaf's score with its guard built in: ts_rank of a NULL tsvector (other record types) is NULL. Where the
 * leaf holds for every record scored, its score where matched.
 */
const rankOrZero = (sql: Sql, compiled: Compiled, query: Query, field: Field, alwaysMatched: boolean): Scored => {
  if (alwaysMatched && compiled.scoreWhenMatched !== undefined) {
    const { scoreWhenMatched, ...rest } = compiled
    return scored({ ...rest, score: scoreWhenMatched })
  }
  if (!isAnyWordQuery(query, field)) return scored(compiled)
  return scored({ ...compiled, score: sql`coalesce(${compiled.score}, 0)` }, true)
}

/**
 * `alwaysMatched`: the query holds for every record scored, as the root does (the search reads only the records it
 * matches), and with it its bool's must and filter clauses, and its should clauses when all of them must hold.
 * Scores can then be computed as for records known to match (`scoreWhenMatched`). `ranking`: see `Ranking`.
 * `records`: the records the search reads, when `alias` is theirs (a join query's inner records are of every type).
 */
export const compileQuery = (
  sql: Sql,
  query: Query,
  alias: string,
  depth = 0,
  alwaysMatched = false,
  ranking: Ranking = "exact",
  records: SearchedRecords | undefined = undefined
): Effect.Effect<Scored, SearchRequestError> =>
  Effect.gen(function* () {
    const field = (name: string) => resolveField(sql, name, alias)
    switch (query._tag) {
      case "MatchAll":
        return scored(trueCondition(sql))
      case "MatchNone":
        return scored(falseCondition(sql), true)
      case "Bool": {
        const required = requiredShould(query.minimumShouldMatch, query.should.length, query.must.length + query.filter.length > 0)
        const everyShouldHolds = alwaysMatched && required > 0 && required === query.should.length
        const compile = (queries: ReadonlyArray<Query>, matched: boolean) =>
          Effect.forEach(queries, (item) => compileQuery(sql, item, alias, depth, matched, ranking, records))
        const [must, filter, should, mustNot] = yield* Effect.all([
          compile(query.must, alwaysMatched),
          compile(query.filter, alwaysMatched),
          compile(query.should, everyShouldHolds),
          compile(query.mustNot, false)
        ])
        if (must.length + filter.length + should.length + mustNot.length === 0) return scored(trueCondition(sql))
        if (required > should.length) return scored(falseCondition(sql), true)
        const matched = (clause: Compiled) => sql`coalesce(${testOf(clause)}, false)`
        // The bool's condition from its clauses' conditions as `form` writes them: for the indexes, or to test one record.
        const condition = (form: (clause: Compiled) => Fragment) => {
          const conditions: Array<Fragment> = [...must, ...filter].map(form)
          if (required === 1) conditions.push(anyOf(sql, should.map(form)))
          else if (required === should.length && required > 0) conditions.push(...should.map(form))
          else if (required > 1)
            conditions.push(sql`(${sql.join(" + ", false)(should.map((clause) => sql`${matched(clause)}::int`))}) >= ${required}`)
          conditions.push(...mustNot.map((clause) => sql`NOT ${matched(clause)}`))
          return allOf(sql, conditions)
        }
        const tested = [...must, ...filter, ...should].some((clause) => clause.test !== undefined)
        const guarded = (clause: Scored) =>
          clause.zeroUnlessMatched ? clause.score : sql`CASE WHEN ${matched(clause)} THEN ${clause.score} ELSE 0 END`
        // One of several should clauses holds for every record scored: where none of the others holds, this one does.
        // Each clause repeats the others' conditions, so only for a few clauses (the default fields are four).
        const oneShouldHolds = alwaysMatched && required === 1 && should.length > 1 && should.length <= maxClausesTestedTogether
        const shouldScore = (clause: Scored, index: number) => {
          if (everyShouldHolds) return clause.score
          if (!oneShouldHolds || clause.scoreWhenMatched === undefined) return guarded(clause)
          const others = anyOf(sql, should.filter((_, other) => other !== index).map(testOf))
          return sql`CASE WHEN ${others} THEN ${guarded(clause)} ELSE ${clause.scoreWhenMatched} END`
        }
        const scores = [...must.map((clause) => clause.score), ...should.map(shouldScore)]
        // Only should clauses, one of which must hold: where none holds, each of their scores is 0 (unless scored as
        // always matched, which no parent then guards).
        const onlyAnyShould = must.length + filter.length + mustNot.length === 0 && required === 1 && !alwaysMatched
        // The scores added are the must and should clauses', so are their shortfalls.
        const slack = [...must, ...should].flatMap((clause) => clause.slack ?? [])
        const relations = [...must, ...filter, ...should, ...mustNot].flatMap((clause) => clause.relations ?? [])
        return scored(
          {
            where: condition((clause) => clause.where),
            ...(tested ? { test: condition(testOf) } : {}),
            score: sum(sql, scores),
            slack,
            ...(relations.length === 0 ? {} : { relations })
          },
          onlyAnyShould
        )
      }
      case "Terms": {
        const target = field(query.field)
        return rankOrZero(
          sql,
          leafOn(target, yield* exactValues(sql, target, query.values, query.caseInsensitive)),
          query,
          target,
          alwaysMatched
        )
      }
      case "Match": {
        const target = field(query.field)
        const compiled =
          target.kind === "text"
            ? yield* textMatch(sql, target, query.text, query.operator, ranking, records)
            : yield* exactValues(sql, target, [query.text], false)
        return rankOrZero(sql, leafOn(target, compiled), query, target, alwaysMatched)
      }
      case "Phrase": {
        const target = field(query.field)
        const compiled =
          target.kind === "text"
            ? phraseMatch(sql, target, query.text, query.slop, ranking)
            : yield* exactValues(sql, target, [query.text], false)
        return rankOrZero(sql, leafOn(target, compiled), query, target, alwaysMatched)
      }
      case "Range":
        return scored(yield* rangeCondition(sql, field(query.field), query, records))
      case "Exists":
        return scored(existsCondition(sql, field(query.field)))
      case "Ids":
        return query.values.length === 0
          ? scored(falseCondition(sql), true)
          : scored({ where: sql`${sql.literal(alias)}.id IN ${sql.in(query.values)}`, score: sql.literal("1") })
      case "Wildcard": {
        const target = field(query.field)
        return scored(leafOn(target, yield* wildcardCondition(sql, target, query.pattern, query.caseInsensitive, records)))
      }
      case "Regexp": {
        const target = field(query.field)
        return scored(leafOn(target, yield* regexpCondition(sql, target, query.pattern, query.caseInsensitive, records)))
      }
      case "Fuzzy": {
        const target = field(query.field)
        const fieldAt = (other: string) => resolveField(sql, query.field, other)
        return scored(leafOn(target, yield* fuzzyCondition(sql, target, query.value, query.distance, records, fieldAt)))
      }
      case "HasChild": {
        if (!childTypes.includes(query.type))
          return yield* illegalArgument(`[has_child] join field [join] doesn't hold [${query.type}] as a child`)
        const child = `c${depth + 1}`
        const inner = yield* compileQuery(sql, query.query, child, depth + 1)
        const [c, r] = [sql.literal(child), sql.literal(alias)]
        return scored({
          where: sql`EXISTS (SELECT 1 FROM search_records ${c} WHERE ${c}.project = ${r}.project AND ${c}.join_parent = ${r}.id AND ${c}.type = ${query.type} AND ${inner.where})`,
          score: sql.literal("1")
        })
      }
      case "HasParent": {
        if (!parentTypes.includes(query.parentType))
          return yield* illegalArgument(`[has_parent] join field [join] doesn't hold [${query.parentType}] as a parent`)
        const parent = `p${depth + 1}`
        const inner = yield* compileQuery(sql, query.query, parent, depth + 1)
        const [p, r] = [sql.literal(parent), sql.literal(alias)]
        return scored({
          where: sql`EXISTS (SELECT 1 FROM search_records ${p} WHERE ${p}.project = ${r}.project AND ${p}.id = ${r}.join_parent AND ${p}.type = ${query.parentType} AND ${inner.where})`,
          score: sql.literal("1")
        })
      }
      case "ParentId": {
        if (!childTypes.includes(query.type))
          return yield* illegalArgument(`[parent_id] join field [join] doesn't hold [${query.type}] as a child`)
        const r = sql.literal(alias)
        return scored({ where: sql`(${r}.type = ${query.type} AND ${r}.join_parent = ${query.id})`, score: sql.literal("1") })
      }
    }
  })
