import type { SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { ReviewFieldInvalid, ReviewWriteForbidden } from "../../domain/review/ReviewErrors.ts"
import { applyReviewChange, checkReviewChange, loadReview, notYourReview, type ReviewChange } from "../../domain/review/ReviewUpdate.ts"
import { recordReviewActivity } from "../../domain/review/Activity.ts"
import { notifyMentions } from "../../domain/review/Mentions.ts"
import { pathParam } from "../Http.ts"
import { readDocument, type RequestDocument } from "./Document.ts"
import { badRequest, conflict, forbidden, JsonApiError, notFound } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import type { ReadContext } from "./Resource.ts"
import { registry } from "./resources/index.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"
import { checkAttributes, ValidationFailed } from "./Validation.ts"

const reviewMissing = () => new JsonApiError({ status: 404, detail: "No TaskRecordReview matches the given query.", pointer: null, code: "not_found" })

/** The checker of a review the requester may see (reviews of the tasks they check; staff see all), or 404. */
export const reviewInScope = (context: ReadContext, id: string, missing: () => JsonApiError = reviewMissing) =>
  Effect.gen(function* () {
    if (!/^\d{1,9}$/.test(id)) return yield* missing()
    const { sql, user } = context
    const [row] = yield* sql<{ id: number; checkerId: number | null }>`
      SELECT v.id, v.checker_id AS "checkerId" FROM review_task_record_reviews v
      JOIN review_task_records rec ON rec.id = v.task_record_id
      WHERE v.id = ${Number(id)}
        AND (${user.isStaff} OR rec.task_id IN (SELECT task_id FROM review_task_checkers WHERE checker_id = ${user.id}))`
    return row === undefined ? yield* missing() : row
  })

/** Moves the pointers of errors found in a payload under `base` (bulk payloads live inside the operation). */
const under = (base: string, error: JsonApiError) =>
  new JsonApiError({ status: error.status, detail: error.detail, code: error.code, pointer: error.pointer === null ? null : `${base}${error.pointer.replace(/^\/data/, "")}` })

/**
 * The change a review payload asks for: `note` (≤ 100 characters or null), `alternativeValue` (free text or
 * null) and the `choice` relationship (a Choice or null). Anything else is read-only and ignored.
 */
export const reviewChangeOf = (payload: RequestDocument, base = "/data") =>
  Effect.gen(function* () {
    const { values, errors } = checkAttributes(payload.attributes, { note: { kind: "string", max: 100, nullable: true }, alternative_value: { kind: "string", nullable: true } }, false)
    if (errors.length > 0) return yield* new ValidationFailed({ errors: errors.map((error) => under(base, error)) })
    const change: { -readonly [K in keyof ReviewChange]: ReviewChange[K] } = {}
    if ("note" in values) change.note = values.note as string | null
    if ("alternative_value" in values) change.alternativeValue = values.alternative_value as string | null
    const choice = payload.relationships.choice
    if (choice === null) change.choiceId = null
    else if (choice !== undefined) {
      if (Array.isArray(choice)) return yield* badRequest("Expected a single resource identifier, received a list.", `${base}/relationships/choice`)
      const single = choice as { type: string; id: string }
      if (single.type !== "Choice") return yield* conflict(`Incorrect relation type. Expected Choice, received ${single.type}.`)
      if (!/^\d{1,9}$/.test(single.id)) return yield* badRequest(`Invalid pk "${single.id}" - object does not exist.`, `${base}/relationships/choice`, "does_not_exist")
      change.choiceId = Number(single.id)
    }
    return change as ReviewChange
  })

/** The domain's refusals as JSON:API errors, pointing at the member concerned under `base`. */
export const reviewRefusals = <A, R>(
  effect: Effect.Effect<A, ReviewWriteForbidden | ReviewFieldInvalid | JsonApiError | ValidationFailed | SqlError.SqlError, R>,
  base = "/data"
) =>
  effect.pipe(
    Effect.catchTags({
      ReviewWriteForbidden: (error) => Effect.fail(forbidden(error.reason)),
      ReviewFieldInvalid: (error) =>
        Effect.fail(badRequest(error.reason, `${base}/${error.field === "choice" ? "relationships" : "attributes"}/${error.field}`, error.field === "choice" ? "does_not_exist" : "invalid"))
    })
  )

/** Checks then saves a change of the requester's review, in the caller's transaction. */
export const checkReview = (context: ReadContext, reviewId: number, change: ReviewChange) =>
  Effect.gen(function* () {
    const review = yield* loadReview(reviewId)
    if (review === undefined) return yield* notFound("The resource cannot be found")
    yield* checkReviewChange(context.user.id, review, change)
  })

/** Saves a checked change with its recomputations, actions and mentions, in the caller's transaction. */
export const saveReview = (context: ReadContext, reviewId: number, change: ReviewChange) =>
  Effect.gen(function* () {
    const review = yield* loadReview(reviewId)
    if (review === undefined) return yield* notFound("The resource cannot be found")
    const outcome = yield* applyReviewChange(review, change)
    yield* recordReviewActivity(context.user.id, outcome)
    const place = { object: { type: "TaskRecordReview", id: review.id }, taskId: review.taskId, projectId: null }
    if (typeof change.note === "string") yield* notifyMentions(context.user.id, place, change.note)
  })

/** `PUT /task-record-reviews/:id/`: the review's checker picks or cancels a choice, writes a note, an alternative value. */
const updateReview = Effect.gen(function* () {
  const context = yield* readContext
  const urlId = yield* pathParam("id")
  const review = yield* reviewInScope(context, urlId)
  if (review.checkerId !== context.user.id) return yield* forbidden(notYourReview)
  const change = yield* reviewChangeOf(yield* readDocument("TaskRecordReview", urlId))
  yield* reviewRefusals(
    context.sql.withTransaction(
      Effect.gen(function* () {
        yield* checkReview(context, review.id, change)
        yield* saveReview(context, review.id, change)
      })
    )
  )
  return document(yield* readOne(registry, context, registry.TaskRecordReview, urlId, new URLSearchParams(), "No TaskRecordReview matches the given query."))
})

export const reviewWriteRoutes = [jsonApiRoute("PUT", `${apiRoot}/task-record-reviews/:id`, updateReview, "Updates a review (its checker only): choice, note, alternative value")]
