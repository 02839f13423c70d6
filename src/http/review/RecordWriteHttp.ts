import { Effect } from "effect"
import { checkRecordAccess, setRecordBookmark, setRecordLock } from "../../domain/review/RecordMarks.ts"
import { registry } from "../../domain/review/resources/index.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import { pathParam } from "../../transport/Http.ts"
import { recordContentUpdate } from "./ContentHttp.ts"
import { readDocument } from "./Document.ts"
import { badRequest } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { reviewRefusals } from "./ReviewWriteHttp.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"
import { existingId } from "./Writer.ts"

/**
 * `PUT` or `PATCH /task-records/:id/` (equivalent). Checkers may only lock, unlock and bookmark, as the
 * record's reviewers while its task is OPEN (checked before the body); every other attribute is ignored for
 * them. Staff also edit the record's content; lock and bookmark follow the same rules for them.
 */
const updateRecord = Effect.gen(function* () {
  const context = yield* readContext
  const urlId = yield* pathParam("id")
  const id = yield* existingId("review_task_records", "TaskRecord", urlId)
  const userId = context.user.id
  if (!context.user.isStaff) yield* reviewRefusals(checkRecordAccess(id, userId))
  const request = yield* readDocument("TaskRecord", urlId)
  const { locked, bookmarked } = request.attributes
  if (locked !== undefined && typeof locked !== "boolean") return yield* badRequest("Must be a valid boolean.", "/data/attributes/locked")
  const content = context.user.isStaff ? yield* recordContentUpdate(id, request) : Effect.void
  yield* reviewRefusals(
    inTransaction(
      Effect.gen(function* () {
        const marks = typeof locked === "boolean" || typeof bookmarked === "boolean"
        if (marks && context.user.isStaff) yield* checkRecordAccess(id, userId)
        if (typeof locked === "boolean") yield* setRecordLock(id, userId, locked)
        if (typeof bookmarked === "boolean") yield* setRecordBookmark(id, userId, bookmarked)
        yield* content
      })
    )
  )
  return document(
    yield* readOne(registry, context, registry.TaskRecord, urlId, new URLSearchParams(), "No TaskRecord matches the given query.")
  )
})

export const recordWriteRoutes = [
  jsonApiRoute(
    "PUT",
    `${apiRoot}/task-records/:id`,
    updateRecord,
    "Locks, unlocks or bookmarks a record (its reviewers); staff also edit it"
  ),
  jsonApiRoute("PATCH", `${apiRoot}/task-records/:id`, updateRecord, "Same as PUT")
]
