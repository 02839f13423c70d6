import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ReadContext } from "../../domain/review/resources/Resource.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import type { ReviewFieldInvalid, ReviewNotFound, ReviewWriteForbidden } from "../../domain/review/ReviewErrors.ts"
import { checkReviewChange, loadReview, notYourReview, saveReviewChange } from "../../domain/review/ReviewUpdate.ts"
import { listMaxBodyBytes, withBodyLimit } from "../Router.ts"
import { notificationUpdate } from "./ActivityHttp.ts"
import { isObject, readDocument, resourceData, type RequestDocument } from "./Document.ts"
import { badRequest, forbidden, type JsonApiError } from "./JsonApiError.ts"
import { apiRoot } from "./ReadHttp.ts"
import { cannotBeFound, reviewChangeOf, reviewInScope, reviewRefusals } from "./ReviewWriteHttp.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"
import type { ValidationFailed } from "./Validation.ts"

type Failure = JsonApiError | ValidationFailed | ReviewWriteForbidden | ReviewFieldInvalid | ReviewNotFound

/** A checked operation: the write it will run once every operation of the request has been checked. */
type Prepared = Effect.Effect<void, Failure, SqlClient.SqlClient>

/** How one payload type is checked against its target, exactly as the single-resource PUT checks it. */
type PayloadKind = (
  context: ReadContext,
  targetId: string,
  payload: RequestDocument,
  base: string
) => Effect.Effect<Prepared, Failure, SqlClient.SqlClient>

const reviewPayload: PayloadKind = (context, targetId, payload, base) =>
  Effect.gen(function* () {
    const review = yield* reviewInScope(context, targetId, cannotBeFound)
    if (review.checkerId !== context.user.id) return yield* forbidden(notYourReview)
    const change = yield* reviewChangeOf(payload, base)
    const state = yield* loadReview(review.id)
    if (state === undefined) return yield* cannotBeFound()
    // Unlike the reference, a bulk choice meets the lock and task-status checks of the single update.
    yield* reviewRefusals(checkReviewChange(context.user.id, state, change), base)
    return saveReviewChange(context.user.id, review.id, change)
  })

const notificationPayload: PayloadKind = (context, targetId, payload, base) =>
  notificationUpdate(context, targetId, payload, base, { missing: cannotBeFound, foreign: () => forbidden() })

const payloadKinds: Readonly<Record<string, PayloadKind>> = { TaskRecordReview: reviewPayload, UserNotification: notificationPayload }

const listOf = (attributes: Readonly<Record<string, unknown>>, name: string) =>
  Array.isArray(attributes[name])
    ? Effect.succeed(attributes[name] as ReadonlyArray<unknown>)
    : Effect.fail(badRequest("This field is required.", `/data/attributes/${name}`))

/** Checks operation `index` and answers its write; payloads are matched by id compared as strings. */
const prepare = (context: ReadContext, payloads: ReadonlyArray<unknown>, operation: unknown, index: number) =>
  Effect.gen(function* () {
    const base = `/data/attributes/operations/${index}`
    if (!isObject(operation) || operation.id === undefined || operation.payload === undefined || operation.method === undefined) {
      return yield* badRequest("An operation needs an `id`, a `method` and a `payload`.", base)
    }
    if (operation.method !== "update") return yield* badRequest(`"${String(operation.method)}" is not a valid choice.`, `${base}/method`)
    const payload = payloads.find((candidate) => isObject(candidate) && String(candidate.id) === String(operation.payload))
    if (!isObject(payload)) return yield* badRequest(`Payload ${String(operation.payload)} cannot be found in the \`payloads\` list`, base)
    const data = isObject(payload.value) && isObject(payload.value.data) ? payload.value.data : {}
    if (typeof data.type !== "string") return yield* badRequest("Payload data must define a `type`", base)
    const kind = payloadKinds[data.type]
    if (kind === undefined) return yield* badRequest(`Payload type must be one of: ${Object.keys(payloadKinds).join(", ")}`, base)
    return yield* kind(context, String(operation.id), yield* resourceData(data), base)
  })

/**
 * `POST /operations/`: many updates in one request, all or nothing. Every operation is checked like its
 * single-resource update before any is written, and the writes share one transaction.
 */
const operations = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* readDocument("Operation")
  const operationList = yield* listOf(request.attributes, "operations")
  const payloadList = yield* listOf(request.attributes, "payloads")
  yield* reviewRefusals(
    inTransaction(
      Effect.gen(function* () {
        const writes = yield* Effect.forEach(operationList, (operation, index) => prepare(context, payloadList, operation, index))
        yield* Effect.all(writes, { discard: true })
      })
    )
  )
  return document({ data: { operations: operationList, payloads: payloadList } })
})

export const operationRoutes = [
  withBodyLimit(listMaxBodyBytes)(
    jsonApiRoute("POST", `${apiRoot}/operations`, operations, "Bulk updates of reviews and notifications, all or nothing")
  )
]
