import { Effect } from "effect"
import { attribute, removeReview } from "../../domain/review/Attribution.ts"
import { registry } from "../../domain/review/resources/index.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import { pathParam } from "../../transport/Http.ts"
import { readDocument } from "./Document.ts"
import { badRequest } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, noContent, staffContext } from "./Route.ts"
import { checkWrite, existingId } from "./Writer.ts"

/** `POST /task-record-reviews/`: gives a record to a checker for a round, with the rules of round attribution. */
const assign = Effect.gen(function* () {
  const context = yield* staffContext
  const request = yield* readDocument("TaskRecordReview")
  const write = yield* checkWrite(
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
  const id = yield* inTransaction(
    attribute({
      recordId: write.columns.task_record_id as number,
      checkerId: write.columns.checker_id as number,
      ...(round === undefined ? {} : { round })
    })
  ).pipe(Effect.catchTag("AttributionRefused", (error) => Effect.fail(badRequest(error.message))))
  const body = yield* readOne(
    registry,
    context,
    registry.TaskRecordReview,
    String(id),
    new URLSearchParams(),
    "No TaskRecordReview matches the given query."
  )
  return document(body, 201)
})

const unassign = Effect.gen(function* () {
  yield* staffContext
  const id = yield* existingId("review_task_record_reviews", "TaskRecordReview", yield* pathParam("id"))
  yield* inTransaction(removeReview(id))
  return noContent
})

export const assignmentRoutes = [
  jsonApiRoute("POST", `${apiRoot}/task-record-reviews`, assign, "Assigns a record to a checker for a round (staff only)"),
  jsonApiRoute("DELETE", `${apiRoot}/task-record-reviews/:id`, unassign, "Deletes a review (staff only)")
]
