import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { csvLine } from "./Csv.ts"

const recordColumns = [
  "id",
  "uid",
  "original_value",
  "predicted_value",
  "metadata",
  "status",
  "rounds",
  "priority",
  "link",
  "embeddable_link",
  "locked",
  "has_notes",
  "has_disagreements"
]

const reviewColumns = ["id", "status", "checker", "round", "choice", "note", "alternative_value", "task_record_id", "task_record_uid"]

/** A task's records as CSV, one line per record in id order; metadata as JSON. */
export const exportRecords = (taskId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`
      SELECT id, uid, original_value, predicted_value, metadata, status, rounds, priority, link, embeddable_link, locked, has_notes, has_disagreements
      FROM review_task_records WHERE task_id = ${taskId} ORDER BY id`
    return csvLine(recordColumns) + rows.map((row) => csvLine(recordColumns.map((column) => row[column]))).join("")
  }).pipe(dieOnSqlError)

/** A task's reviews as CSV: checker by username, choice by value, and the record's id and uid. */
export const exportReviews = (taskId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`
      SELECT v.id, v.status, u.login AS checker, v.round, c.value AS choice, v.note, v.alternative_value,
        r.id AS task_record_id, r.uid AS task_record_uid
      FROM review_task_record_reviews v
      JOIN review_task_records r ON r.id = v.task_record_id
      LEFT JOIN users u ON u.id = v.checker_id
      LEFT JOIN review_choices c ON c.id = v.choice_id
      WHERE r.task_id = ${taskId} ORDER BY v.id`
    return csvLine(reviewColumns) + rows.map((row) => csvLine(reviewColumns.map((column) => row[column]))).join("")
  }).pipe(dieOnSqlError)
