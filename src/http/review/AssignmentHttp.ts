import { Effect } from "effect"
import { attribute } from "../../domain/review/Attribution.ts"
import { refreshRecords } from "../../domain/review/RecordState.ts"
import { pathParam } from "../Http.ts"
import { readDocument } from "./Document.ts"
import { badRequest } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { registry } from "./resources/index.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, noContent, staffContext } from "./Route.ts"
import { checkWrite, existingId } from "./Writer.ts"

/** `POST /task-record-reviews/`: gives a record to a checker for a round, with the rules of round attribution. */
const assign = Effect.gen(function* () {
  const context = yield* staffContext
  const request = yield* readDocument("TaskRecordReview")
  const write = yield* checkWrite(
    context.sql,
    request,
    {
      attributes: { round: { kind: "integer", min: 1 } },
      toOne: {
        task_record: { type: "TaskRecord", table: "review_task_records", column: "task_record_id", required: true },
        checker: { type: "User", table: "users", column: "checker_id", required: true }
      }
    },
    true
  )
  const round = write.columns.round as number | undefined
  const id = yield* context.sql
    .withTransaction(
      attribute({ recordId: write.columns.task_record_id as number, checkerId: write.columns.checker_id as number, ...(round === undefined ? {} : { round }) })
    )
    .pipe(Effect.catchTag("AttributionRefused", (error) => Effect.fail(badRequest(error.message))))
  const body = yield* readOne(registry, context, registry.TaskRecordReview, String(id), new URLSearchParams(), "No TaskRecordReview matches the given query.")
  return document(body, 201)
})

/** Deleting a review recomputes its record's status and flags. */
const unassign = Effect.gen(function* () {
  const context = yield* staffContext
  const id = yield* existingId(context.sql, "review_task_record_reviews", "TaskRecordReview", yield* pathParam("id"))
  yield* context.sql.withTransaction(
    Effect.gen(function* () {
      const rows = yield* context.sql<{ recordId: number | null }>`
        DELETE FROM review_task_record_reviews WHERE id = ${id} RETURNING task_record_id AS "recordId"`
      yield* refreshRecords(rows.flatMap((row) => (row.recordId === null ? [] : [row.recordId])))
    })
  )
  return noContent
})

export const assignmentRoutes = [
  jsonApiRoute("POST", `${apiRoot}/task-record-reviews`, assign, "Assigns a record to a checker for a round (staff only)"),
  jsonApiRoute("DELETE", `${apiRoot}/task-record-reviews/:id`, unassign, "Deletes a review (staff only)")
]
