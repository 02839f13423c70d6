import { Effect } from "effect"
import { registry } from "../../domain/review/resources/index.ts"
import type { ReadContext } from "../../domain/review/resources/Resource.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import type { ReviewFieldInvalid, ReviewNotFound, ReviewWriteForbidden } from "../../domain/review/ReviewErrors.ts"
import { visibleReview } from "../../domain/review/ReviewLists.ts"
import type { ReviewChange } from "../../domain/review/ReviewChange.ts"
import { changeReview, notYourReview } from "../../domain/review/ReviewUpdate.ts"
import { pathParam } from "../../transport/Http.ts"
import { readDocument, type RequestDocument } from "./Document.ts"
import { badRequest, conflict, forbidden, JsonApiError, notFound } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"
import { checkAttributes, ValidationFailed } from "./Validation.ts"

const reviewMissing = () =>
  new JsonApiError({ status: 404, detail: "No TaskRecordReview matches the given query.", pointer: null, code: "not_found" })

/** A review the requester may see (reviews of the tasks they check; staff see all), or 404. */
export const reviewInScope = (context: ReadContext, id: string, missing: () => JsonApiError = reviewMissing) =>
  Effect.gen(function* () {
    if (!/^\d{1,9}$/.test(id)) return yield* missing()
    const review = yield* visibleReview(Number(id), context.user)
    return review === undefined ? yield* missing() : review
  })

/** Moves the pointers of errors found in a payload under `base` (bulk payloads live inside the operation). */
const under = (base: string, error: JsonApiError) =>
  new JsonApiError({
    status: error.status,
    detail: error.detail,
    code: error.code,
    pointer: error.pointer === null ? null : `${base}${error.pointer.replace(/^\/data/, "")}`
  })

/**
 * The change a review payload asks for: `note` (≤ 100 characters or null), `alternativeValue` (free text or
 * null) and the `choice` relationship (a Choice or null). Anything else is read-only and ignored.
 */
export const reviewChangeOf = (payload: RequestDocument, base = "/data") =>
  Effect.gen(function* () {
    const { values, errors } = checkAttributes(
      payload.attributes,
      { note: { kind: "string", max: 100, nullable: true }, alternative_value: { kind: "string", nullable: true } },
      false
    )
    if (errors.length > 0) return yield* new ValidationFailed({ errors: errors.map((error) => under(base, error)) })
    const change: { -readonly [K in keyof ReviewChange]: ReviewChange[K] } = {}
    if ("note" in values) change.note = values.note as string | null
    if ("alternative_value" in values) change.alternativeValue = values.alternative_value as string | null
    const choice = payload.relationships.choice
    if (choice === null) change.choiceId = null
    else if (choice !== undefined) {
      if (Array.isArray(choice))
        return yield* badRequest("Expected a single resource identifier, received a list.", `${base}/relationships/choice`)
      const single = choice as { type: string; id: string }
      if (single.type !== "Choice") return yield* conflict(`Incorrect relation type. Expected Choice, received ${single.type}.`)
      if (!/^\d{1,9}$/.test(single.id))
        return yield* badRequest(`Invalid pk "${single.id}" - object does not exist.`, `${base}/relationships/choice`, "does_not_exist")
      change.choiceId = Number(single.id)
    }
    return change as ReviewChange
  })

/** The 404 of a review update whose review is gone, and of a bulk operation whose target cannot be found. */
export const cannotBeFound = () => notFound("The resource cannot be found")

/** The domain's refusals as JSON:API errors, pointing at the member concerned under `base`. */
export const reviewRefusals = <A, R>(
  effect: Effect.Effect<A, ReviewWriteForbidden | ReviewFieldInvalid | ReviewNotFound | JsonApiError | ValidationFailed, R>,
  base = "/data"
) =>
  effect.pipe(
    Effect.catchTags({
      ReviewNotFound: () => Effect.fail(cannotBeFound()),
      ReviewWriteForbidden: (error) => Effect.fail(forbidden(error.reason)),
      ReviewFieldInvalid: (error) =>
        Effect.fail(
          badRequest(
            error.reason,
            `${base}/${error.field === "choice" ? "relationships" : "attributes"}/${error.field}`,
            error.field === "choice" ? "does_not_exist" : "invalid"
          )
        )
    })
  )

/** `PUT /task-record-reviews/:id/`: the review's checker picks or cancels a choice, writes a note, an alternative value. */
const updateReview = Effect.gen(function* () {
  const context = yield* readContext
  const urlId = yield* pathParam("id")
  const review = yield* reviewInScope(context, urlId)
  if (review.checkerId !== context.user.id) return yield* forbidden(notYourReview)
  const change = yield* reviewChangeOf(yield* readDocument("TaskRecordReview", urlId))
  yield* reviewRefusals(inTransaction(changeReview(context.user.id, review.id, change)))
  return document(
    yield* readOne(
      registry,
      context,
      registry.TaskRecordReview,
      urlId,
      new URLSearchParams(),
      "No TaskRecordReview matches the given query."
    )
  )
})

export const reviewWriteRoutes = [
  jsonApiRoute(
    "PUT",
    `${apiRoot}/task-record-reviews/:id`,
    updateReview,
    "Updates a review (its checker only): choice, note, alternative value"
  )
]
