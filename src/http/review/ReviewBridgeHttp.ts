import { Effect } from "effect"
import type { BridgeCaller } from "../../domain/review-bridge/ReviewBridge.ts"
import type { ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound } from "../../domain/review-bridge/ReviewBridgeErrors.ts"
import { ReviewBridges } from "../../domain/review-bridge/ReviewBridges.ts"
import { registry } from "../../domain/review/resources/index.ts"
import type { ReadContext } from "../../domain/review/resources/Resource.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { pathParam } from "../../transport/Http.ts"
import { readDocument } from "./Document.ts"
import { badRequest, forbidden, notFound } from "./JsonApiError.ts"
import { readOne } from "./Reader.ts"
import { apiRoot } from "./ReadHttp.ts"
import { document, jsonApiRoute, staffContext } from "./Route.ts"
import { ValidationFailed } from "./Validation.ts"
import { attributeInvalid, checkWrite, existingId } from "./Writer.ts"

const relationships = new Set(["project", "choiceGroup", "checkers"])

/** Where a domain refusal points in the request document. */
const pointerOf = (field: string) =>
  field === "task" ? "/data/id" : relationships.has(field) ? `/data/relationships/${field}` : `/data/attributes/${field}`

/** The caller as the bridge checks it: staff (already required) and the document projects they may use. */
const bridgeCaller = (context: ReadContext) =>
  Effect.map(CurrentUser, (current) => current.grantedProjects).pipe(
    Effect.flatten,
    Effect.map((grantedProjects): BridgeCaller => ({
      login: context.user.login,
      userId: context.user.id,
      isStaff: context.user.isStaff,
      grantedProjects
    }))
  )

/** The domain's refusals as JSON:API errors, pointing at the member concerned. */
const refusedWith = (error: ReviewBridgeForbidden) => Effect.fail(forbidden(error.reason))
const invalidAt = (error: ReviewBridgeInvalid) => Effect.fail(badRequest(error.reason, pointerOf(error.field)))
const missingAt = (error: ReviewBridgeNotFound) => Effect.fail(notFound(error.reason, pointerOf(error.field)))

/** A list of strings, or a 400 pointing at the attribute. */
const stringList = (name: string, value: unknown) =>
  value === undefined || (Array.isArray(value) && value.every((item) => typeof item === "string"))
    ? Effect.succeed(value as ReadonlyArray<string> | undefined)
    : Effect.fail(new ValidationFailed({ errors: [attributeInvalid(name, "Expected a list of strings.")] }))

/**
 * `POST /tasks/from-batch-search/`: a Task document whose attributes name the batch search and the options, and
 * whose relationships give the new task's project, choice group and checkers; with an `id`, the hits go to that
 * existing task instead, and new-task fields are refused. Answers the task (201 when created) with what was added
 * in `meta`.
 */
const fromBatchSearch = Effect.gen(function* () {
  const context = yield* staffContext
  const request = yield* readDocument("Task")
  const creating = request.id === undefined
  const write = yield* checkWrite(
    request,
    {
      attributes: {
        batch_search: { kind: "string", required: true },
        name: { kind: "string", max: 100 },
        rounds: { kind: "integer", min: 1 },
        max_hits_per_query: { kind: "integer", min: 1 },
        skip_reviewed: { kind: "boolean" }
      },
      toOne: {
        project: { type: "Project", table: "review_projects", column: "project", required: creating },
        choice_group: { type: "ChoiceGroup", table: "review_choice_groups", column: "choiceGroup", required: creating }
      },
      toMany: { checkers: { type: "User", table: "users" } }
    },
    true
  )
  const queries = yield* stringList("queries", request.attributes.queries)
  const task = request.id === undefined ? undefined : yield* existingId("review_tasks", "Task", request.id)
  const columns = write.columns
  const result = yield* (yield* ReviewBridges)
    .fromBatchSearch(yield* bridgeCaller(context), {
      batchSearch: columns.batch_search as string,
      task,
      name: columns.name as string | undefined,
      project: columns.project as number | undefined,
      choiceGroup: columns.choiceGroup as number | undefined,
      checkers: write.many.checkers,
      rounds: columns.rounds as number | undefined,
      queries,
      maxHitsPerQuery: columns.max_hits_per_query as number | undefined,
      skipReviewed: columns.skip_reviewed as boolean | undefined
    })
    .pipe(
      Effect.catchTags({
        ReviewBridgeForbidden: refusedWith,
        ReviewBridgeInvalid: invalidAt,
        ReviewBridgeNotFound: missingAt,
        BatchSearchNotFound: (error) => Effect.fail(notFound(error.message, pointerOf("batchSearch")))
      })
    )
  const body = yield* readOne(
    registry,
    context,
    registry.Task,
    String(result.task),
    new URLSearchParams(),
    "No Task matches the given query."
  )
  return document({ ...body, meta: { records: result.records, skipped: result.skipped } }, result.createdTask ? 201 : 200)
})

/**
 * `POST /tasks/:id/tag-documents/`: a TagDocuments document with the `tag` and the `confirmingValues` (choice
 * values that confirm a record); the documents of the confirmed records get the tag in the search service.
 */
const tagDocuments = Effect.gen(function* () {
  const context = yield* staffContext
  const task = yield* existingId("review_tasks", "Task", yield* pathParam("id"))
  const request = yield* readDocument("TagDocuments")
  const write = yield* checkWrite(request, { attributes: { tag: { kind: "string", max: 64, required: true } } }, true)
  const confirmingValues = yield* stringList("confirming_values", request.attributes.confirming_values)
  const result = yield* (yield* ReviewBridges)
    .tagDocuments(yield* bridgeCaller(context), { task, tag: write.columns.tag as string, confirmingValues: confirmingValues ?? [] })
    .pipe(Effect.catchTags({ ReviewBridgeForbidden: refusedWith, ReviewBridgeInvalid: invalidAt, ReviewBridgeNotFound: missingAt }))
  return document({ meta: { tag: write.columns.tag, records: result.records, documents: result.documents } })
})

export const reviewBridgeRoutes = [
  jsonApiRoute(
    "POST",
    `${apiRoot}/tasks/from-batch-search`,
    fromBatchSearch,
    "Creates (or extends) a review task from the hits of a batch search (staff only)"
  ),
  jsonApiRoute(
    "POST",
    `${apiRoot}/tasks/:id/tag-documents`,
    tagDocuments,
    "Tags the documents of a task's confirmed records in the search service (staff only)"
  )
]
