import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { attributeAutomatically } from "./Attribution.ts"
import { parseCsv } from "./Csv.ts"
import { InvalidUpload } from "./ReviewErrors.ts"

/** The TaskRecord field names a CSV header may use; only the four imported ones are read from rows. */
const recordFields = new Set([
  "id",
  "task",
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
  "locked_by",
  "has_notes",
  "has_disagreements",
  "bookmarked_by"
])

interface ImportRow {
  readonly uid: string | null
  readonly originalValue: string | null
  readonly predictedValue: string | null
  readonly metadata: string | null
}

const refuse = (reason: string) => new InvalidUpload({ reason, field: "csv_file" })

/** Checks the whole file before anything is written: known columns, one value per column, uid length. */
export const readRecordCsv = (text: string) =>
  Effect.gen(function* () {
    const [header, ...lines] = parseCsv(text)
    if (header === undefined || header.every((name) => name.trim() === "")) return yield* refuse("The CSV file has no header.")
    const names = header.map((name) => name.trim())
    const unknown = names.filter((name) => !recordFields.has(name))
    if (unknown.length > 0) return yield* refuse(`Unknown column${unknown.length > 1 ? "s" : ""} in the CSV header: ${unknown.join(", ")}.`)
    const column = (name: string) => names.indexOf(name)
    const positions = {
      uid: column("uid"),
      originalValue: column("original_value"),
      predictedValue: column("predicted_value"),
      metadata: column("metadata")
    }
    const rows: Array<ImportRow> = []
    for (const [index, line] of lines.entries()) {
      if (line.length === 1 && line[0] === "") continue
      const rowNumber = index + 2
      if (line.length !== names.length) return yield* refuse(`Row ${rowNumber} has ${line.length} values for ${names.length} columns.`)
      // PostgreSQL text cannot hold NUL characters: refused here with the row rather than by the database.
      if (line.some((field) => field.includes("\u0000"))) return yield* refuse(`Row ${rowNumber} contains a NUL character.`)
      const value = (position: number) => (position < 0 || line[position] === "" ? null : line[position]!)
      const uid = value(positions.uid)
      if (uid !== null && uid.length > 100) return yield* refuse(`Row ${rowNumber}: the uid has more than 100 characters.`)
      rows.push({
        uid,
        originalValue: value(positions.originalValue),
        predictedValue: value(positions.predictedValue),
        metadata: value(positions.metadata)
      })
    }
    return rows
  }).pipe(dieOnSqlError)

/**
 * Imports CSV rows into a task in one transaction: a row whose uid names a record of the task overwrites that
 * record's four columns (missing ones become null), other rows create records, which then get their automatic
 * attributions. A uid repeated in the file creates its record once and updates it afterwards, like row-by-row.
 */
export const importRecords = (taskId: number, rows: ReadonlyArray<ImportRow>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const uids = [...new Set(rows.flatMap((row) => (row.uid === null ? [] : [row.uid])))]
    const existing = yield* sql<{ id: number; uid: string }>`
      SELECT DISTINCT ON (uid) id, uid FROM review_task_records WHERE task_id = ${taskId} AND uid = ANY(${uids}::text[]) ORDER BY uid, id`
    const known = new Set(existing.map((row) => row.uid))
    const created: Array<ImportRow> = []
    const lastUpdate = new Map<string, ImportRow>()
    for (const row of rows) {
      if (row.uid !== null && known.has(row.uid)) lastUpdate.set(row.uid, row)
      else {
        created.push(row)
        if (row.uid !== null) known.add(row.uid)
      }
    }
    const updatedCount = rows.length - created.length
    const column = <K extends keyof ImportRow>(list: ReadonlyArray<ImportRow>, key: K) => list.map((row) => row[key])
    const inserted = yield* sql<{ id: number; uid: string | null }>`
      INSERT INTO review_task_records (task_id, uid, original_value, predicted_value, metadata)
      SELECT ${taskId}, u.uid, u.original_value, u.predicted_value, to_jsonb(u.metadata)
      FROM unnest(${column(created, "uid")}::text[], ${column(created, "originalValue")}::text[], ${column(created, "predictedValue")}::text[],
        ${column(created, "metadata")}::text[]) AS u (uid, original_value, predicted_value, metadata)
      RETURNING id, uid`
    const updates = [...lastUpdate.values()]
    if (updates.length > 0) {
      yield* sql`
        UPDATE review_task_records r SET original_value = u.original_value, predicted_value = u.predicted_value, metadata = to_jsonb(u.metadata)
        FROM unnest(${column(updates, "uid")}::text[], ${column(updates, "originalValue")}::text[], ${column(updates, "predictedValue")}::text[],
          ${column(updates, "metadata")}::text[]) AS u (uid, original_value, predicted_value, metadata)
        WHERE r.task_id = ${taskId} AND r.uid = u.uid`
    }
    yield* attributeAutomatically(
      taskId,
      inserted.map((row) => row.id)
    )
    return { created: inserted.length, updated: updatedCount }
  }).pipe(dieOnSqlError)
