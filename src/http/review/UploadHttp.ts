import { Effect } from "effect"
import { importAlternativeValues } from "../../domain/review/AlternativeValueImport.ts"
import { importRecords, readRecordCsv } from "../../domain/review/RecordImport.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import type { InvalidUpload } from "../../domain/review/ReviewErrors.ts"
import { type ReviewTable, rowExists } from "../../domain/review/ReviewRows.ts"
import { uploadMaxBodyBytes, withBodyLimit } from "../Router.ts"
import { JsonApiError } from "./JsonApiError.ts"
import { type FormPart, readForm } from "./Multipart.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, staffContext } from "./Route.ts"

const fieldError = (field: string, detail: string, code = "invalid") =>
  new JsonApiError({ status: 400, detail, pointer: `/data/attributes/${field}`, code })

const uploadError = (error: InvalidUpload) => fieldError(error.field, error.reason)

/** A form field naming a row of `table` by id. */
export const formReference = (form: ReadonlyMap<string, FormPart>, field: string, table: ReviewTable) =>
  Effect.gen(function* () {
    const value = form.get(field)?.content.toString("utf8").trim()
    if (value === undefined || value === "") return yield* fieldError(field, "This field is required.", "required")
    const invalid = fieldError(field, "Select a valid choice. That choice is not one of the available choices.", "invalid_choice")
    if (!/^\d{1,9}$/.test(value)) return yield* invalid
    return (yield* rowExists(table, Number(value))) ? Number(value) : yield* invalid
  })

export const formFile = (form: ReadonlyMap<string, FormPart>, field: string) => {
  const part = form.get(field)
  return part === undefined || part.filename === undefined
    ? Effect.fail(fieldError(field, "No file was submitted.", "required"))
    : Effect.succeed(part.content)
}

const uploadRecords = Effect.gen(function* () {
  yield* staffContext
  const form = yield* readForm
  const task = yield* formReference(form, "task", "review_tasks")
  const text = (yield* formFile(form, "csv_file")).toString("utf8")
  const rows = yield* readRecordCsv(text).pipe(Effect.mapError(uploadError))
  const counts = yield* inTransaction(importRecords(task, rows))
  return document({ meta: counts })
})

const uploadAlternativeValues = Effect.gen(function* () {
  yield* staffContext
  const form = yield* readForm
  const group = yield* formReference(form, "choice_group", "review_choice_groups")
  const text = (yield* formFile(form, "csv_file")).toString("utf8")
  const counts = yield* inTransaction(importAlternativeValues(group, text)).pipe(
    Effect.catchTag("InvalidUpload", (error) => Effect.fail(uploadError(error)))
  )
  return document({ meta: counts })
})

export const uploadRoutes = [
  jsonApiRoute(
    "POST",
    `${apiRoot}/task-records/upload`,
    uploadRecords,
    "Imports task records from a CSV file (multipart: task, csv_file; staff only)"
  ),
  jsonApiRoute(
    "POST",
    `${apiRoot}/alternative-values/upload`,
    uploadAlternativeValues,
    "Imports alternative values from a CSV file (multipart: choice_group, csv_file; staff only)"
  )
].map(withBodyLimit(uploadMaxBodyBytes))
