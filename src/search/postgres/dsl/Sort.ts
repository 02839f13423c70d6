import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { SortClause } from "./Ast.ts"
import { illegalArgument, type SearchRequestError } from "./Errors.ts"
import { type Field, resolveField } from "./Fields.ts"

/**
 * ORDER BY items of a sort: missing values last in both directions (first with `missing: _first`), arrays by
 * their smallest value ascending and largest descending, keywords by bytes as ES compares them. A field the
 * mapping does not know sorts nothing (every record is "missing"), with or without `unmapped_type`.
 */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor

export interface SortKey {
  /** Null when the clause orders nothing (an unknown field). */
  readonly expression: Fragment | undefined
  readonly order: Fragment
  /** What a hit shows in `sort`: the score, a date's epoch milliseconds, or the value. */
  readonly kind: "score" | "date" | "value"
}

const arrayValue = (sql: Sql, column: Fragment, descending: boolean, lower = false) =>
  sql`(SELECT ${sql.literal(descending ? "max" : "min")}(${lower ? sql`lower(x)` : sql`x`}) FROM unnest(${column}) AS u(x))`

const fieldExpression = (
  sql: Sql,
  field: Field,
  name: string,
  descending: boolean
): Effect.Effect<Fragment | undefined, SearchRequestError> => {
  switch (field.kind) {
    case "keyword":
      if (field.array) return Effect.succeed(sql`${arrayValue(sql, field.column, descending, field.lowercase)} COLLATE "C"`)
      return Effect.succeed(sql`${field.column} COLLATE "C"`)
    case "number":
      return Effect.succeed(field.array ? arrayValue(sql, field.column, descending) : field.column)
    case "date":
    case "boolean":
      return Effect.succeed(field.column)
    case "tree":
      return Effect.succeed(sql`${arrayValue(sql, field.column, descending)} COLLATE "C"`)
    case "routing":
      return Effect.succeed(sql`CASE WHEN ${field.routed} THEN ${field.column} END`)
    case "text":
      return Effect.fail(
        illegalArgument(
          `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${name}] in order to load field data by uninverting the inverted index.`
        )
      )
    case "unknown":
      return Effect.succeed(undefined)
  }
}

export const sortKeys = (
  sql: Sql,
  clauses: ReadonlyArray<SortClause>,
  score: Fragment
): Effect.Effect<ReadonlyArray<SortKey>, SearchRequestError> =>
  Effect.forEach(clauses, (clause) =>
    Effect.gen(function* () {
      const descending = clause.order === "desc"
      const direction = sql.literal(descending ? "DESC" : "ASC")
      switch (clause._tag) {
        case "Score":
          return { expression: score, order: direction, kind: "score" } satisfies SortKey
        case "Doc":
          return { expression: sql`r.id COLLATE "C"`, order: direction, kind: "value" } satisfies SortKey
        case "OffsetsCount":
          return { expression: sql`coalesce(cardinality(r.offsets), 0)`, order: direction, kind: "value" } satisfies SortKey
        case "IdPosition":
          return {
            expression: sql`coalesce(array_position(${clause.ids}::text[], r.id::text) - 1, -1)`,
            order: direction,
            kind: "value"
          } satisfies SortKey
        case "Field": {
          const field = resolveField(sql, clause.field, "r")
          const expression = yield* fieldExpression(sql, field, clause.field, descending)
          const nulls = sql.literal(clause.missingFirst ? "NULLS FIRST" : "NULLS LAST")
          return { expression, order: sql`${direction} ${nulls}`, kind: field.kind === "date" ? "date" : "value" } satisfies SortKey
        }
      }
    })
  )
