import { Effect, Schema } from "effect"
import { BatchDownloads } from "../../domain/batch-download/BatchDownloads.ts"
import { allowMethods, json, jsonBody } from "../../transport/Http.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"
import { LegacyTaskView, liveTaskView } from "./TaskApi.ts"

const tag = "task"

/** A batch download's request: the projects to search, a query string or an Elasticsearch query object, the search URI. */
const BatchDownloadBody = Schema.Struct({
  options: Schema.Struct({
    projectIds: Schema.NonEmptyArray(Schema.String),
    query: Schema.Union(Schema.NonEmptyString, Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    uri: Schema.optionalWith(Schema.String, { default: () => "" })
  })
})

export const batchDownloadRoutes = [
  publicRoute(
    "OPTIONS",
    "/api/task/batchDownload",
    Effect.succeed(allowMethods("OPTIONS, POST", { "Access-Control-Allow-Headers": "Content-Type" })),
    { summary: "Methods allowed on batchDownload", tag }
  ),
  route(
    "POST",
    "/api/task/batchDownload",
    Effect.gen(function* () {
      const { options } = yield* jsonBody(BatchDownloadBody)
      const current = yield* CurrentUser
      const requester = { userId: current.user.id, grantedProjects: yield* current.grantedProjects }
      const task = yield* (yield* BatchDownloads).start(requester, options)
      return json(yield* liveTaskView(task, current.user))
    }),
    {
      summary:
        "Starts a batch download: a zip of the source files of every document matching `query` (a query string, or an " +
        "Elasticsearch query object) in `projectIds`; the task's result is the zip (GET /api/task/:id/result). 400 for missing " +
        "options, 403 for a project not granted",
      tag,
      requestBody: BatchDownloadBody,
      response: LegacyTaskView
    }
  )
]
