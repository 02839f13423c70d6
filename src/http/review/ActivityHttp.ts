import { Effect } from "effect"
import { markNotification } from "../../domain/review/Notifications.ts"
import { actionsAboutRecord, actionsOfUser } from "../../domain/review/resources/Activity.ts"
import { registry } from "../../domain/review/resources/index.ts"
import type { ReadContext } from "../../domain/review/resources/Resource.ts"
import { notificationRecipient, recordVisible, userIdOf } from "../../domain/review/ReviewAccess.ts"
import { inTransaction } from "../../db/SqlFailure.ts"
import { HttpRequest, pathParam } from "../../transport/Http.ts"
import { readDocument, type RequestDocument } from "./Document.ts"
import { JsonApiError, notFound } from "./JsonApiError.ts"
import { readCollection, readOne } from "./Reader.ts"
import { apiRoot, collectionRoutes, detail } from "./ReadHttp.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"
import { checkAttributes, ValidationFailed } from "./Validation.ts"

/** Actions about a record: those whose target or action object is the record or one of its reviews. */
const recordActions = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  const id = yield* pathParam("id")
  // A record out of the user's scope is not found, as its detail is not.
  if (!/^\d{1,9}$/.test(id) || !(yield* recordVisible(Number(id), context.user))) return yield* notFound()
  return document(yield* readCollection(registry, context, registry.Action, request, [actionsAboutRecord(context, Number(id))]))
})

/** A user's public actions (as actor or target), newest first: the user page's activity; 404 for an unknown user. */
const userActions = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  const key = yield* pathParam("id")
  const userId = yield* userIdOf(key)
  if (userId === undefined) return yield* notFound()
  return document(yield* readCollection(registry, context, registry.Action, request, [actionsOfUser(context, userId)]))
})

const aggregateFilters = new Set(Object.keys(registry.ActionAggregate.filters ?? {}))

/**
 * Action aggregates take their filters as plain parameters (`user=…`) as the reference does, and as
 * `filter[user]=…` as its front end sends them; other parameters are ignored rather than refused.
 */
const aggregates = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  const query = new URLSearchParams()
  for (const [name, value] of request.query) {
    const filter = /^filter\[(.+)\]$/.exec(name)?.[1] ?? name
    if (aggregateFilters.has(filter) && value !== "") query.append(`filter[${filter}]`, value)
    else if (/^page\[(number|size)\]$/.test(name) || name === "include") query.set(name, value)
  }
  return document(yield* readCollection(registry, context, registry.ActionAggregate, { path: request.path, query }))
})

/** How a notification that is not the requester's is refused: 404 for the single PUT, 403 in bulk operations. */
export interface NotificationRefusals {
  readonly missing: () => JsonApiError
  readonly foreign: () => JsonApiError
}

/** A notification the requester received, or the refusal for a missing or someone else's one. */
const ownNotification = (context: ReadContext, id: string, refusals: NotificationRefusals) =>
  Effect.gen(function* () {
    if (!/^\d{1,9}$/.test(id)) return yield* refusals.missing()
    const recipientId = yield* notificationRecipient(Number(id))
    if (recipientId === undefined) return yield* refusals.missing()
    return recipientId === context.user.id ? Number(id) : yield* refusals.foreign()
  })

const notificationMissing = () =>
  new JsonApiError({ status: 404, detail: "No UserNotification matches the given query.", pointer: null, code: "not_found" })

const singleRefusals: NotificationRefusals = { missing: notificationMissing, foreign: notificationMissing }

/** Checks a notification payload (only `read` is writable) and answers the write, for PUT and bulk operations. */
export const notificationUpdate = (
  context: ReadContext,
  targetId: string,
  payload: RequestDocument,
  base = "/data",
  refusals = singleRefusals
) =>
  Effect.gen(function* () {
    const id = yield* ownNotification(context, targetId, refusals)
    const { values, errors } = checkAttributes(payload.attributes, { read: { kind: "boolean" } }, false)
    if (errors.length > 0) {
      return yield* new ValidationFailed({
        errors: errors.map(
          (error) =>
            new JsonApiError({
              status: error.status,
              detail: error.detail,
              code: error.code,
              pointer: `${base}${(error.pointer ?? "").replace(/^\/data/, "")}`
            })
        )
      })
    }
    return typeof values.read === "boolean" ? markNotification(id, values.read) : Effect.void
  })

const updateNotification = Effect.gen(function* () {
  const context = yield* readContext
  const urlId = yield* pathParam("id")
  yield* ownNotification(context, urlId, singleRefusals)
  const write = yield* notificationUpdate(context, urlId, yield* readDocument("UserNotification", urlId))
  yield* inTransaction(write)
  return document(
    yield* readOne(
      registry,
      context,
      registry.UserNotification,
      urlId,
      new URLSearchParams(),
      "No UserNotification matches the given query."
    )
  )
})

export const activityRoutes = [
  ...collectionRoutes("actions", registry.Action, "The activity stream"),
  jsonApiRoute("GET", `${apiRoot}/task-records/:id/actions`, recordActions, "Actions about a record and its reviews"),
  jsonApiRoute("GET", `${apiRoot}/task-records/:id/relationships/actions`, recordActions, "Actions about a record and its reviews"),
  jsonApiRoute("GET", `${apiRoot}/users/:id/actions`, userActions, "A user's actions, newest first"),
  jsonApiRoute("GET", `${apiRoot}/users/:id/relationships/actions`, userActions, "A user's actions, newest first"),
  jsonApiRoute("GET", `${apiRoot}/action-aggregates`, aggregates, "Daily counters of review actions per user and task"),
  jsonApiRoute("GET", `${apiRoot}/action-aggregates/:id`, detail(registry.ActionAggregate), "A daily counter"),
  ...collectionRoutes("user-notifications", registry.UserNotification, "The requester's notifications"),
  jsonApiRoute("PUT", `${apiRoot}/user-notifications/:id`, updateNotification, "Marks a notification read or unread")
]
