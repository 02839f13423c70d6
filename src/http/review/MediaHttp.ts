import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { exportRecords, exportReviews } from "../../domain/review/Exports.ts"
import { mediaRoot, uploadMedia } from "../../domain/review/MediaUpload.ts"
import { visibleMedia } from "../../domain/review/ReviewAccess.ts"
import { pathParam, stream, text } from "../../transport/Http.ts"
import { uploadMaxBodyBytes, withBodyLimit } from "../Router.ts"
import { JsonApiError, notFound } from "./JsonApiError.ts"
import { readForm } from "./Multipart.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, readContext, staffContext } from "./Route.ts"
import { formFile, formReference } from "./UploadHttp.ts"
import { existingId } from "./Writer.ts"

const truthy = (value: string | undefined) => value !== undefined && ["1", "true", "on", "yes"].includes(value.trim().toLowerCase())

const uploadZip = Effect.gen(function* () {
  yield* staffContext
  const settings = yield* Settings
  const form = yield* readForm
  const task = yield* formReference(form, "task", "review_tasks")
  const zip = yield* formFile(form, "zip_file")
  const onlyOne = truthy(form.get("only_one_per_task_record")?.content.toString("utf8"))
  const counts = yield* uploadMedia(settings.dataDir, task, zip, onlyOne).pipe(
    Effect.catchTag("InvalidUpload", (error) =>
      Effect.fail(new JsonApiError({ status: 400, detail: error.reason, pointer: `/data/attributes/${error.field}`, code: "invalid" }))
    )
  )
  return document({ meta: counts })
})

/** A media file's bytes, for whoever may see the media (its task's checkers, and staff). */
const mediaFile = Effect.gen(function* () {
  const context = yield* readContext
  const settings = yield* Settings
  const id = yield* pathParam("id")
  const missing = notFound("No TaskRecordMedia matches the given query.", null)
  if (!/^\d{1,9}$/.test(id)) return yield* missing
  const media = yield* visibleMedia(Number(id), context.user)
  if (media === undefined) return yield* missing
  const file = path.join(mediaRoot(settings.dataDir), media.file)
  const exists = yield* Effect.promise(() =>
    fs.promises.access(file).then(
      () => true,
      () => false
    )
  )
  if (!exists) return yield* missing
  return stream(fs.createReadStream(file), media.mimeType)
})

const csvExport = (kind: "records" | "reviews") =>
  Effect.gen(function* () {
    yield* staffContext
    const task = yield* existingId("review_tasks", "Task", yield* pathParam("id"))
    const csv = yield* kind === "records" ? exportRecords(task) : exportReviews(task)
    return text(csv, "text/csv;charset=UTF-8", 200, { "Content-Disposition": `attachment;filename="task-${task}-${kind}.csv"` })
  })

export const mediaRoutes = [
  withBodyLimit(uploadMaxBodyBytes)(
    jsonApiRoute(
      "POST",
      `${apiRoot}/task-record-media/upload`,
      uploadZip,
      "Attaches the files of a ZIP to records by uid (multipart: task, zip_file, only_one_per_task_record; staff only)"
    )
  ),
  jsonApiRoute("GET", `${apiRoot}/task-record-media/:id/file`, mediaFile, "A media file's content"),
  jsonApiRoute("GET", `${apiRoot}/tasks/:id/export/records`, csvExport("records"), "A task's records as CSV (staff only)"),
  jsonApiRoute("GET", `${apiRoot}/tasks/:id/export/reviews`, csvExport("reviews"), "A task's reviews as CSV (staff only)")
]
