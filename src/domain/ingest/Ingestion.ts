import * as path from "node:path"
import { Effect } from "effect"
import { Settings, type SettingsShape } from "../../config/Settings.ts"
import { dieOnSqlError, inTransaction } from "../../db/SqlFailure.ts"
import { Engine } from "../../engine/Engine.ts"
import { IndexJob } from "../../engine/kinds/IndexJob.ts"
import { ScanJob } from "../../engine/kinds/ScanJob.ts"
import { guardPath } from "../PathGuard.ts"
import { requireWritableProject } from "../project/Access.ts"
import { BadRequest, Forbidden } from "../RequestErrors.ts"
import { CurrentUser } from "../user/CurrentUser.ts"
import { indexPayloadOf, optionTexts, projectOf, scanPayloadOf } from "./IngestOptions.ts"
import { scanBoundary } from "./SourceFolder.ts"

/**
 * Starting scans and index tasks, whichever door the request came in by (`/api/task/batchUpdate/...`, the ingest
 * RPCs): the same options, the same checks, the same tasks.
 */

/** A task's options: the request's over the server settings (the request wins). */
export const taskOptions = (settings: SettingsShape, requested: Readonly<Record<string, unknown>> | undefined) => ({
  ...settings.values,
  ...optionTexts(requested ?? {})
})

/**
 * The absolute directory named by `filePath`, refused unless it is in the data folder both as written and once
 * links are resolved (a missing path is judged by its nearest existing ancestor).
 */
export const directoryInDataDir = (dataDir: string, filePath: string) =>
  Effect.gen(function* () {
    if (filePath.includes("\0")) return yield* new BadRequest({ message: "invalid path" })
    const requested = path.resolve(path.sep, filePath)
    yield* guardPath(dataDir, requested, { missing: "allowed" }).pipe(
      Effect.mapError(() => new Forbidden({ message: `${requested} is not in the data folder` }))
    )
    return requested
  })

/**
 * The scan of `directory` into the project the options name, once the caller may write to that project and scan
 * that folder (its source folder, administrators aside).
 */
const scanPayloadFor = (directory: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const project = projectOf(options, settings.defaultProject)
    yield* requireWritableProject(project)
    const boundary = yield* scanBoundary(directory, project, { isAdmin: (yield* CurrentUser).isAdmin, dataDir: settings.dataDir })
    return { ...(yield* scanPayloadOf(directory, project, options)), boundary }
  })

/** The index task of the project the options name, once the caller may write to it. */
const indexPayloadFor = (options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const payload = yield* indexPayloadOf(options, { project: settings.defaultProject, parallelism: settings.parallelism })
    yield* requireWritableProject(payload.project)
    return payload
  })

const callerId = Effect.map(CurrentUser, (current) => current.user.id)

/** Queues an index task draining the project's document queue; it ends once no scan of the project is left. */
export const startIndex = (options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const payload = yield* indexPayloadFor(options)
    return yield* dieOnSqlError((yield* Engine).submit(IndexJob, payload, { userId: yield* callerId }))
  })

/** Queues a scan of `directory` (already checked to be in the data folder) into the project's document queue. */
export const startScan = (directory: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const payload = yield* scanPayloadFor(directory, options)
    return yield* dieOnSqlError((yield* Engine).submit(ScanJob, payload, { userId: yield* callerId }))
  })

/**
 * Queues a scan of `directory` then an index task of the same project, which waits for the scan's files. Both are
 * queued in one transaction: a scan whose index task failed to be queued would fill a queue nothing drains.
 */
export const startScanAndIndex = (directory: string, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const scanPayload = yield* scanPayloadFor(directory, options)
    const indexPayload = yield* indexPayloadFor(options)
    const userId = yield* callerId
    const engine = yield* Engine
    const submitBoth = Effect.all({
      scan: engine.submit(ScanJob, scanPayload, { userId }),
      index: engine.submit(IndexJob, indexPayload, { userId })
    })
    return yield* inTransaction(submitBoth)
  })
