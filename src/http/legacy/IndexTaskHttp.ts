import * as path from "node:path"
import { Effect, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { indexPayloadOf, optionTexts, projectOf, scanPayloadOf } from "../../domain/ingest/IngestOptions.ts"
import { isWithin, realPath } from "../../domain/ingest/Paths.ts"
import { scanBoundary } from "../../domain/ingest/SourceFolder.ts"
import { Engine } from "../../engine/Engine.ts"
import { IndexJob } from "../../engine/kinds/IndexJob.ts"
import { ScanJob } from "../../engine/kinds/ScanJob.ts"
import { HttpRequest, json, jsonBody, pathParam } from "../Http.ts"
import { BadRequest, Forbidden } from "../../domain/RequestErrors.ts"
import { requireGranted } from "../../domain/project/Access.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { route } from "../Router.ts"
import { legacyTaskView, LegacyTaskView } from "./TaskApi.ts"

const tag = "task"

/** `{"options": {...}}`, values of any type (the reference coerces them to strings); an empty body is `{}`. */
export const TaskOptionsBody = Schema.Struct({ options: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) })

/** The request's options over the server settings (§9.3: the request wins). */
export const requestOptions = Effect.gen(function* () {
  const request = yield* HttpRequest
  const settings = yield* Settings
  const bytes = yield* request.body
  const body = bytes.toString("utf8").trim() === "" ? {} : yield* jsonBody(TaskOptionsBody)
  return { settings, options: { ...settings.values, ...optionTexts(body.options ?? {}) } }
})

/**
 * The absolute directory named by the `:filePath:` capture, refused unless it is in the data folder both as
 * written and once links are resolved (a missing path is judged by its nearest existing ancestor).
 */
export const directoryInDataDir = (dataDir: string, filePath: string) =>
  Effect.gen(function* () {
    if (filePath.includes("\0")) return yield* new BadRequest({ message: "invalid path" })
    const requested = path.resolve(path.sep, filePath)
    const root = path.resolve(dataDir)
    const realRoot = yield* realPath(root)
    const forbidden = new Forbidden({ message: `${requested} is not in the data folder` })
    if (!isWithin(root, requested) && !isWithin(realRoot, requested)) return yield* forbidden
    if (!isWithin(realRoot, yield* realPath(requested))) return yield* forbidden
    return requested
  })

/**
 * Tasks write into the project they name: administrators (the LOCAL user among them) may name any project, other
 * users only one of theirs (403).
 */
export const requireWritableProject = (project: string) =>
  Effect.gen(function* () {
    const current = yield* CurrentUser
    if (current.isAdmin) return
    yield* requireGranted(project, { login: current.user.id, grantedProjects: yield* current.grantedProjects })
  })

/**
 * The scan of `directory` into the project the options name, once the caller may write to that project and scan
 * that folder (its source folder, administrators aside).
 */
export const scanPayloadFor = (directory: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const project = projectOf(options, settings.defaultProject)
    yield* requireWritableProject(project)
    const boundary = yield* scanBoundary(directory, project, { isAdmin: (yield* CurrentUser).isAdmin, dataDir: settings.dataDir })
    return { ...(yield* scanPayloadOf(directory, project, options)), boundary }
  })

/** Queues a scan of `directory` then an index of the same project: the index waits for the scan's files. */
const scanThenIndex = (directory: string) =>
  Effect.gen(function* () {
    const { settings, options } = yield* requestOptions
    const user = (yield* CurrentUser).user
    const engine = yield* Engine
    const scanPayload = yield* scanPayloadFor(directory, options)
    const indexPayload = yield* indexPayloadOf(options, { project: settings.defaultProject, parallelism: settings.parallelism })
    yield* requireWritableProject(indexPayload.project)
    const scan = yield* engine.submit(ScanJob, scanPayload, { userId: user.id })
    const index = yield* engine.submit(IndexJob, indexPayload, { userId: user.id })
    return json([legacyTaskView(scan, user), legacyTaskView(index, user)])
  })

const dataDirPath = Effect.flatMap(Effect.all([Settings, pathParam("filePath")]), ([settings, filePath]) => directoryInDataDir(settings.dataDir, filePath))

const views = Schema.Array(LegacyTaskView)
const options = "options: `defaultProject`, `queueName`, `parallelism`, `ocr`, `language`, `maxContentLength` (index); `queueName`, " +
  "`includeHiddenFiles`, `includeOSFiles`, `includePattern`, `excludePattern`, `followSymlinks`, `maxDepth`, `filter` (true: skip " +
  "files already in the index) (scan); they override the server settings. 403 for a project that is not the caller's (administrators may name any)"

export const indexTaskRoutes = [
  route(
    "POST",
    "/api/task/batchUpdate/index",
    Effect.gen(function* () {
      const { settings, options } = yield* requestOptions
      const user = (yield* CurrentUser).user
      const payload = yield* indexPayloadOf(options, { project: settings.defaultProject, parallelism: settings.parallelism })
      yield* requireWritableProject(payload.project)
      return json(legacyTaskView(yield* (yield* Engine).submit(IndexJob, payload, { userId: user.id }), user))
    }),
    { summary: `Starts an index task draining the project's document queue; it ends once no scan of the project is left. ${options}`, tag, requestBody: TaskOptionsBody, response: LegacyTaskView }
  ),
  route(
    "POST",
    "/api/task/batchUpdate/index/file",
    Effect.flatMap(Settings, (settings) => scanThenIndex(path.resolve(settings.dataDir))),
    { summary: `Scans the data folder and indexes what it finds: [scan task, index task]. ${options}`, tag, requestBody: TaskOptionsBody, response: views }
  ),
  route(
    "POST",
    "/api/task/batchUpdate/index/:filePath:",
    Effect.flatMap(dataDirPath, scanThenIndex),
    { summary: `Scans /<filePath> and indexes what it finds: [scan task, index task]; 403 outside the data folder. ${options}`, tag, requestBody: TaskOptionsBody, response: views }
  ),
  route(
    "POST",
    "/api/task/batchUpdate/scan/:filePath:",
    Effect.gen(function* () {
      const directory = yield* dataDirPath
      const { options } = yield* requestOptions
      const user = (yield* CurrentUser).user
      const payload = yield* scanPayloadFor(directory, options)
      return json(legacyTaskView(yield* (yield* Engine).submit(ScanJob, payload, { userId: user.id }), user))
    }),
    { summary: `Starts a scan of /<filePath> into the project's document queue; 403 outside the data folder. ${options}`, tag, requestBody: TaskOptionsBody, response: LegacyTaskView }
  )
]
