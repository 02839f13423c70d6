import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { checkRecordReading } from "../../domain/review/RecordMarks.ts"
import { registry } from "../../domain/review/resources/index.ts"
import type { ResourceDefinition } from "../../domain/review/resources/Resource.ts"
import { ofProject, projectTaskDefinition } from "../../domain/review/resources/Tasks.ts"
import { userByKey } from "../../domain/review/resources/Users.ts"
import { visibleReview } from "../../domain/review/ReviewLists.ts"
import { rowExists } from "../../domain/review/ReviewRows.ts"
import { listSettings } from "../../domain/review/ReviewSettings.ts"
import { notYourReview } from "../../domain/review/ReviewUpdate.ts"
import { findReviewUser } from "../../domain/review/ReviewUser.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { HttpRequest, pathParam } from "../../transport/Http.ts"
import { forbidden, notFound } from "./JsonApiError.ts"
import { readCollection, readOne } from "./Reader.ts"
import { document, jsonApiRoute, readContext } from "./Route.ts"

export const apiRoot = "/api/v1"

/** Collections listed by the API root, by name. */
const collections = [
  "users",
  "projects",
  "choice-groups",
  "choices",
  "alternative-values",
  "tasks",
  "task-template-settings",
  "task-records",
  "task-record-media",
  "task-record-reviews",
  "tips",
  "settings",
  "task-user-statistics",
  "task-user-choice-statistics",
  "actions",
  "action-aggregates",
  "user-notifications"
]

const list = (definition: ResourceDefinition) =>
  Effect.gen(function* () {
    const context = yield* readContext
    const request = yield* HttpRequest
    return document(yield* readCollection(registry, context, definition, request))
  })

const modelName = (definition: ResourceDefinition) => (typeof definition.type === "string" ? definition.type : "TaskTemplateSetting")

export const detail = (definition: ResourceDefinition) =>
  Effect.gen(function* () {
    const context = yield* readContext
    const request = yield* HttpRequest
    const id = yield* pathParam("id")
    return document(
      yield* readOne(registry, context, definition, id, request.query, `No ${modelName(definition)} matches the given query.`)
    )
  })

/** A record's detail is for its reviewers (a review of their own on it) while its task is OPEN; staff read any. */
const recordDetail = Effect.gen(function* () {
  const context = yield* readContext
  const id = yield* pathParam("id")
  if (!context.user.isStaff && /^\d{1,9}$/.test(id)) {
    yield* checkRecordReading(Number(id), context.user.id).pipe(
      Effect.catchTag("ReviewWriteForbidden", (error) => Effect.fail(forbidden(error.reason)))
    )
  }
  return yield* detail(registry.TaskRecord)
})

/** A review's detail is for its checker, even for reading (reviews out of one's scope stay 404); staff read any. */
const reviewDetail = Effect.gen(function* () {
  const context = yield* readContext
  const id = yield* pathParam("id")
  if (!context.user.isStaff && /^\d{1,9}$/.test(id)) {
    const review = yield* visibleReview(Number(id), context.user)
    if (review !== undefined && review.checkerId !== context.user.id) return yield* forbidden(notYourReview)
  }
  return yield* detail(registry.TaskRecordReview)
})

const userDetail = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  const key = yield* pathParam("id")
  return document(yield* readOne(registry, context, registry.User, key, request.query, "Not found.", userByKey(context, key)))
})

const me = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  return document(yield* readOne(registry, context, registry.User, String(context.user.id), request.query, "Not found."))
})

/** Every task of a project, not user-scoped (as the reference), serialised as tasks. */
const projectTasks = Effect.gen(function* () {
  const context = yield* readContext
  const request = yield* HttpRequest
  const id = yield* pathParam("id")
  if (!/^\d{1,9}$/.test(id) || !(yield* rowExists("review_projects", Number(id)))) {
    return yield* notFound("No Project matches the given query.", null)
  }
  return document(yield* readCollection(registry, context, projectTaskDefinition, request, [ofProject(context, Number(id))]))
})

/** Settings are readable without credentials: anonymous callers see the public ones only. */
const settingsFor = Effect.gen(function* () {
  const current = yield* CurrentUser
  const settings = yield* Settings
  const signedIn = current.user.id !== "" && (yield* findReviewUser(current.user.id, settings.mode !== "SERVER")) !== undefined
  return yield* listSettings(!signedIn)
})

const settingObject = (setting: { key: string; value: string; public: boolean }) => ({
  type: "Setting",
  id: setting.key,
  attributes: { key: setting.key, value: setting.value, public: setting.public }
})

const root = Effect.gen(function* () {
  const context = yield* readContext
  return document({ data: null, links: Object.fromEntries(collections.map((name) => [name, `${context.baseUrl}${apiRoot}/${name}/`])) })
})

export const collectionRoutes = (name: string, definition: ResourceDefinition, label: string) => [
  jsonApiRoute("GET", `${apiRoot}/${name}`, list(definition), `${label}: the collection`),
  jsonApiRoute("GET", `${apiRoot}/${name}/:id`, detail(definition), `${label}: one by id`)
]

export const reviewReadRoutes = [
  jsonApiRoute("GET", apiRoot, root, "Review API root: links to every collection"),
  jsonApiRoute("GET", `${apiRoot}/users`, list(registry.User), "Users"),
  jsonApiRoute("GET", `${apiRoot}/users/me`, me, "The requesting user"),
  jsonApiRoute("GET", `${apiRoot}/users/:id`, userDetail, "A user by id or username"),
  ...collectionRoutes("projects", registry.Project, "Review projects"),
  jsonApiRoute("GET", `${apiRoot}/projects/:id/tasks`, projectTasks, "Every task of a project"),
  ...collectionRoutes("choice-groups", registry.ChoiceGroup, "Choice groups"),
  ...collectionRoutes("choices", registry.Choice, "Choices"),
  ...collectionRoutes("alternative-values", registry.AlternativeValue, "Alternative values"),
  ...collectionRoutes("tasks", registry.Task, "Review tasks"),
  ...collectionRoutes("task-template-settings", registry.TaskTemplateSetting, "Task template settings"),
  jsonApiRoute("GET", `${apiRoot}/task-records`, list(registry.TaskRecord), "Task records"),
  jsonApiRoute("GET", `${apiRoot}/task-records/:id`, recordDetail, "A task record (its reviewers only)"),
  ...collectionRoutes("task-record-media", registry.TaskRecordMedia, "Task record media"),
  jsonApiRoute("GET", `${apiRoot}/task-record-reviews`, list(registry.TaskRecordReview), "Task record reviews of the tasks one checks"),
  jsonApiRoute("GET", `${apiRoot}/task-record-reviews/:id`, reviewDetail, "A review (its checker only)"),
  ...collectionRoutes("tips", registry.Tip, "Tips"),
  ...collectionRoutes("task-user-statistics", registry.TaskUserStatistics, "Checkers' progress per task and round"),
  ...collectionRoutes("task-user-choice-statistics", registry.TaskChoiceStatistics, "Checkers' choices per task and round"),
  jsonApiRoute(
    "GET",
    `${apiRoot}/settings`,
    Effect.map(settingsFor, (settings) => document({ data: settings.map(settingObject) })),
    "Settings"
  ),
  jsonApiRoute(
    "GET",
    `${apiRoot}/settings/:key`,
    Effect.gen(function* () {
      const key = yield* pathParam("key")
      const found = (yield* settingsFor).find((setting) => setting.key === key)
      return found === undefined ? yield* notFound() : document({ data: settingObject(found) })
    }),
    "A setting by key"
  )
]
