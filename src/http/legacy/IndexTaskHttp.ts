import * as path from "node:path"
import { Effect, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { directoryInDataDir, startIndex, startScan, startScanAndIndex, taskOptions } from "../../domain/ingest/Ingestion.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { HttpRequest, json, jsonBody, pathParam } from "../../transport/Http.ts"
import { route } from "../Router.ts"
import { legacyTaskView, LegacyTaskView } from "./TaskApi.ts"

const tag = "task"

/** `{"options": {...}}`, values of any type (the reference coerces them to strings); an empty body is `{}`. */
export const TaskOptionsBody = Schema.Struct({ options: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) })

/** The request's options over the server settings. */
export const requestOptions = Effect.gen(function* () {
  const request = yield* HttpRequest
  const settings = yield* Settings
  const bytes = yield* request.body
  const body = bytes.toString("utf8").trim() === "" ? {} : yield* jsonBody(TaskOptionsBody)
  return { settings, options: taskOptions(settings, body.options) }
})

/** A scan of `directory` then an index of the same project, answered as [scan task, index task]. */
const scanThenIndex = (directory: string) =>
  Effect.gen(function* () {
    const { options } = yield* requestOptions
    const user = (yield* CurrentUser).user
    const { scan, index } = yield* startScanAndIndex(directory, options)
    return json([legacyTaskView(scan, user), legacyTaskView(index, user)])
  })

const dataDirPath = Effect.flatMap(Effect.all([Settings, pathParam("filePath")]), ([settings, filePath]) =>
  directoryInDataDir(settings.dataDir, filePath)
)

const views = Schema.Array(LegacyTaskView)
const options =
  "options: `defaultProject`, `queueName`, `parallelism`, `ocr`, `language`, `maxContentLength` (index); `queueName`, " +
  "`includeHiddenFiles`, `includeOSFiles`, `includePattern`, `excludePattern`, `followSymlinks`, `maxDepth`, `filter` (true: skip " +
  "files already in the index) (scan); they override the server settings. 403 for a project that is not the caller's (administrators may name any)"

export const indexTaskRoutes = [
  route(
    "POST",
    "/api/task/batchUpdate/index",
    Effect.gen(function* () {
      const { options } = yield* requestOptions
      return json(legacyTaskView(yield* startIndex(options), (yield* CurrentUser).user))
    }),
    {
      summary: `Starts an index task draining the project's document queue; it ends once no scan of the project is left. ${options}`,
      tag,
      requestBody: TaskOptionsBody,
      response: LegacyTaskView
    }
  ),
  route(
    "POST",
    "/api/task/batchUpdate/index/file",
    Effect.flatMap(Settings, (settings) => scanThenIndex(path.resolve(settings.dataDir))),
    {
      summary: `Scans the data folder and indexes what it finds: [scan task, index task]. ${options}`,
      tag,
      requestBody: TaskOptionsBody,
      response: views
    }
  ),
  route("POST", "/api/task/batchUpdate/index/:filePath:", Effect.flatMap(dataDirPath, scanThenIndex), {
    summary: `Scans /<filePath> and indexes what it finds: [scan task, index task]; 403 outside the data folder. ${options}`,
    tag,
    requestBody: TaskOptionsBody,
    response: views
  }),
  route(
    "POST",
    "/api/task/batchUpdate/scan/:filePath:",
    Effect.gen(function* () {
      const directory = yield* dataDirPath
      const { options } = yield* requestOptions
      return json(legacyTaskView(yield* startScan(directory, options), (yield* CurrentUser).user))
    }),
    {
      summary: `Starts a scan of /<filePath> into the project's document queue; 403 outside the data folder. ${options}`,
      tag,
      requestBody: TaskOptionsBody,
      response: LegacyTaskView
    }
  )
]
