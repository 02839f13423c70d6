import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { MinimumShouldMatch, Query } from "./Ast.ts"
import { illegalArgument, type SearchRequestError } from "./Errors.ts"
import { resolveField } from "./Fields.ts"
import {
  type Compiled,
  existsCondition,
  falseCondition,
  fuzzyCondition,
  phraseMatch,
  rangeCondition,
  regexpCondition,
  termsCondition,
  textMatch,
  wildcardCondition
} from "./Leaves.ts"

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
export const allOf = (sql: Sql, clauses: ReadonlyArray<Fragment>) => (clauses.length === 0 ? sql.literal("true") : sql`(${sql.and(clauses)})`)
export const anyOf = (sql: Sql, clauses: ReadonlyArray<Fragment>) => (clauses.length === 0 ? sql.literal("false") : sql`(${sql.or(clauses)})`)

const sum = (sql: Sql, scores: ReadonlyArray<Fragment>) => (scores.length === 0 ? sql.literal("0") : sql.join(" + ", true)(scores))

export const compileQuery = (sql: Sql, query: Query, alias: string, depth = 0): Effect.Effect<Compiled, SearchRequestError> =>
  Effect.gen(function* () {
    const field = (name: string) => resolveField(sql, name, alias)
    switch (query._tag) {
      case "MatchAll":
        return trueCondition(sql)
      case "MatchNone":
        return falseCondition(sql)
      case "Bool": {
        const compile = (queries: ReadonlyArray<Query>) => Effect.forEach(queries, (item) => compileQuery(sql, item, alias, depth))
        const [must, filter, should, mustNot] = yield* Effect.all([compile(query.must), compile(query.filter), compile(query.should), compile(query.mustNot)])
        if (must.length + filter.length + should.length + mustNot.length === 0) return trueCondition(sql)
        const required = requiredShould(query.minimumShouldMatch, should.length, must.length + filter.length > 0)
        if (required > should.length) return falseCondition(sql)
        const matched = (clause: Compiled) => sql`coalesce(${clause.where}, false)`
        const conditions: Array<Fragment> = [...must, ...filter].map((clause) => clause.where)
        if (required === 1) conditions.push(anyOf(sql, should.map((clause) => clause.where)))
        else if (required === should.length && required > 0) conditions.push(...should.map((clause) => clause.where))
        else if (required > 1) conditions.push(sql`(${sql.join(" + ", false)(should.map((clause) => sql`${matched(clause)}::int`))}) >= ${required}`)
        conditions.push(...mustNot.map((clause) => sql`NOT ${matched(clause)}`))
        const scores = [
          ...must.map((clause) => clause.score),
          ...should.map((clause) => sql`CASE WHEN ${matched(clause)} THEN ${clause.score} ELSE 0 END`)
        ]
        return { where: allOf(sql, conditions), score: sum(sql, scores) }
      }
      case "Terms":
        return yield* termsCondition(sql, field(query.field), query.values, query.caseInsensitive)
      case "Match": {
        const target = field(query.field)
        return target.kind === "text" ? yield* textMatch(sql, target, query.text, query.operator) : yield* termsCondition(sql, target, [query.text], false)
      }
      case "Phrase": {
        const target = field(query.field)
        return target.kind === "text" ? phraseMatch(sql, target, query.text, query.slop) : yield* termsCondition(sql, target, [query.text], false)
      }
      case "Range":
        return yield* rangeCondition(sql, field(query.field), query)
      case "Exists":
        return existsCondition(sql, field(query.field))
      case "Ids":
        return query.values.length === 0 ? falseCondition(sql) : { where: sql`${sql.literal(alias)}.id IN ${sql.in(query.values)}`, score: sql.literal("1") }
      case "Wildcard":
        return yield* wildcardCondition(sql, field(query.field), query.pattern, query.caseInsensitive)
      case "Regexp":
        return yield* regexpCondition(sql, field(query.field), query.pattern, query.caseInsensitive)
      case "Fuzzy":
        return yield* fuzzyCondition(sql, field(query.field), query.value, query.distance)
      case "HasChild": {
        if (!childTypes.includes(query.type)) return yield* illegalArgument(`[has_child] join field [join] doesn't hold [${query.type}] as a child`)
        const child = `c${depth + 1}`
        const inner = yield* compileQuery(sql, query.query, child, depth + 1)
        const [c, r] = [sql.literal(child), sql.literal(alias)]
        return {
          where: sql`EXISTS (SELECT 1 FROM search_records ${c} WHERE ${c}.project = ${r}.project AND ${c}.join_parent = ${r}.id AND ${c}.type = ${query.type} AND ${inner.where})`,
          score: sql.literal("1")
        }
      }
      case "HasParent": {
        if (!parentTypes.includes(query.parentType)) return yield* illegalArgument(`[has_parent] join field [join] doesn't hold [${query.parentType}] as a parent`)
        const parent = `p${depth + 1}`
        const inner = yield* compileQuery(sql, query.query, parent, depth + 1)
        const [p, r] = [sql.literal(parent), sql.literal(alias)]
        return {
          where: sql`EXISTS (SELECT 1 FROM search_records ${p} WHERE ${p}.project = ${r}.project AND ${p}.id = ${r}.join_parent AND ${p}.type = ${query.parentType} AND ${inner.where})`,
          score: sql.literal("1")
        }
      }
      case "ParentId": {
        if (!childTypes.includes(query.type)) return yield* illegalArgument(`[parent_id] join field [join] doesn't hold [${query.type}] as a child`)
        const r = sql.literal(alias)
        return { where: sql`(${r}.type = ${query.type} AND ${r}.join_parent = ${query.id})`, score: sql.literal("1") }
      }
    }
  })
