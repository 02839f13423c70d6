import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"

/** The tables whose rows review requests name by id. */
export type ReviewTable =
  | "users"
  | "review_projects"
  | "review_choice_groups"
  | "review_choices"
  | "review_alternative_values"
  | "review_tasks"
  | "review_template_settings"
  | "review_task_records"
  | "review_task_record_reviews"
  | "review_tips"

/** Whether `table` holds a row with this id. */
export const rowExists = (table: ReviewTable, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return (yield* sql`SELECT 1 FROM ${sql.literal(table)} WHERE id = ${id}`).length > 0
  }).pipe(dieOnSqlError)

/** Inserts a row and answers its id. */
export const insertRow = (table: ReviewTable, columns: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows =
      Object.keys(columns).length === 0
        ? yield* sql<{ id: number }>`INSERT INTO ${sql.literal(table)} DEFAULT VALUES RETURNING id`
        : yield* sql<{ id: number }>`INSERT INTO ${sql.literal(table)} ${sql.insert(columns)} RETURNING id`
    return rows[0]!.id
  }).pipe(dieOnSqlError)

/** Updates the given columns of a row (nothing when there are none). */
export const updateRow = (table: ReviewTable, id: number, columns: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (Object.keys(columns).length > 0) yield* sql`UPDATE ${sql.literal(table)} SET ${sql.update(columns)} WHERE id = ${id}`
  }).pipe(dieOnSqlError)

export const deleteRow = (table: ReviewTable, id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM ${sql.literal(table)} WHERE id = ${id}`
  }).pipe(dieOnSqlError)
