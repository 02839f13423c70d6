import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { InvalidFilter } from "../ReviewErrors.ts"
import { type ReviewTable, rowExists } from "../ReviewRows.ts"
import type { Filter, ReadContext } from "./Resource.ts"

/** Filter builders over a trusted column expression; every value travels as a parameter. */

export const invalidChoice = "Select a valid choice. That choice is not one of the available choices."

const integerOf = (name: string, value: string) =>
  /^-?\d{1,9}$/.test(value.trim())
    ? Effect.succeed(Number(value.trim()))
    : Effect.fail(new InvalidFilter({ field: name, reason: "Enter a whole number.", code: "invalid" }))

const integersOf = (name: string, value: string) => Effect.forEach(value.split(","), (item) => integerOf(name, item))

/** Booleans as `true/false/1/0` in any case; anything else leaves the filter off. */
export const booleanOf = (value: string) => {
  const lowered = value.toLowerCase()
  return lowered === "true" || lowered === "1" ? true : lowered === "false" || lowered === "0" ? false : undefined
}

export const integerExact =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.map(integerOf(column, value), (number) => sql`${sql.literal(column)} = ${number}`)

export const integerIn =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.map(integersOf(column, value), (numbers) => sql`${sql.literal(column)} = ANY(${numbers}::int[])`)

/**
 * A relationship id: like the reference's form validation, an id that does not exist in the whole table is a
 * 400 at that field rather than an empty result.
 */
export const relationExact =
  (column: string, table: ReviewTable, field: string): Filter =>
  (value, { sql }) =>
    Effect.gen(function* () {
      const invalid = new InvalidFilter({ field, reason: invalidChoice, code: "invalid_choice" })
      const id = yield* Effect.mapError(integerOf(field, value), () => invalid)
      if (!(yield* Effect.provideService(rowExists(table, id), SqlClient.SqlClient, sql))) return yield* invalid
      return sql`${sql.literal(column)} = ${id}`
    })

export const textExact =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`${sql.literal(column)} = ${value}`)

export const textIn =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`${sql.literal(column)} = ANY(${value.split(",")}::text[])`)

export const textIExact =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`lower(${sql.literal(column)}) = lower(${value})`)

export const textContains =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`position(${value} in ${sql.literal(column)}) > 0`)

export const textIContains =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`position(lower(${value}) in lower(${sql.literal(column)})) > 0`)

export const textIRegex =
  (column: string): Filter =>
  (value, { sql }) =>
    Effect.succeed(sql`${sql.literal(column)} ~* ${value}`)

/** A boolean filter; unrecognised values disable it. */
export const booleanExact =
  (column: string): Filter =>
  (value, { sql }) => {
    const flag = booleanOf(value)
    return Effect.succeed(flag === undefined ? sql`TRUE` : sql`${sql.literal(column)} = ${flag}`)
  }

/** The text lookups the reference declares on a char field. */
export const textLookups = (name: string, column: string): Readonly<Record<string, Filter>> => ({
  [name]: textExact(column),
  [`${name}__icontains`]: textIContains(column),
  [`${name}__iexact`]: textIExact(column),
  [`${name}__contains`]: textContains(column),
  [`${name}__in`]: textIn(column)
})

/** The tasks a user checks, for scopes. */
export const checkedTasks = ({ sql, user }: ReadContext) => sql`(SELECT task_id FROM review_task_checkers WHERE checker_id = ${user.id})`

/** ISO-8601 UTC with a Z and microseconds when non-zero, as the reference prints datetimes. */
export const isoTimestamp = (column: string, alias: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS "${alias}"`

export const isoText = (value: unknown) => (typeof value === "string" ? `${value.endsWith(".000000") ? value.slice(0, -7) : value}Z` : null)
