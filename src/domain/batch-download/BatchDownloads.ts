import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Array as Arr, Clock, Duration, Effect, Schedule, SynchronizedRef } from "effect"
import { Settings } from "../../config/Settings.ts"
import { Engine } from "../../engine/Engine.ts"
import { BatchDownloadJob } from "../../engine/kinds/BatchDownloadJob.ts"
import { requireGranted } from "../project/Access.ts"
import { projectFromName, toLegacyProject } from "../project/Project.ts"
import { ProjectRepo } from "../project/ProjectRepo.ts"
import { archiveName, type BatchDownloadQuery, isArchiveName, newPassword } from "./BatchDownload.ts"

/** Who asks for a download. */
export interface Requester {
  readonly userId: string
  readonly grantedProjects: ReadonlyArray<string>
}

/** The request's options, already checked for shape. */
export interface DownloadRequest {
  readonly projectIds: ReadonlyArray<string>
  readonly query: BatchDownloadQuery
  readonly uri: string
}

/** How often expired archives are looked for. */
const cleaningInterval = Duration.minutes(10)

/** Answers the archives of `dir` last written before `cutoff` (milliseconds), deleting them. */
const deleteArchivesOlderThan = (dir: string, cutoff: number) =>
  Effect.gen(function* () {
    const names = yield* Effect.promise(() => fs.readdir(dir).catch(() => []))
    const removed = yield* Effect.forEach(names.filter(isArchiveName), (name) =>
      Effect.promise(async () => {
        const file = path.join(dir, name)
        const info = await fs.stat(file).catch(() => undefined)
        if (info === undefined || !info.isFile() || info.mtimeMs >= cutoff) return []
        await fs.rm(file, { force: true })
        return [name]
      })
    )
    return removed.flat()
  })

/**
 * Batch downloads: queued as tasks named after the download's uuid, and archives deleted once older than
 * batchDownloadTimeToLive hours (checked at start and every ten minutes while the service runs).
 */
export class BatchDownloads extends Effect.Service<BatchDownloads>()("quarry/BatchDownloads", {
  scoped: Effect.gen(function* () {
    const settings = yield* Settings
    const engine = yield* Engine
    const projectRepo = yield* ProjectRepo
    const running = Effect.map(SynchronizedRef.get(settings.current), (values) => ({
      dir: path.resolve(values.batchDownloadDir ?? settings.batchDownloadDir),
      encrypt: values.batchDownloadEncrypt === "true",
      timeToLiveHours: Number(values.batchDownloadTimeToLive ?? "24")
    }))

    const start = Effect.fn("BatchDownloads.start")(function* (requester: Requester, request: DownloadRequest) {
      yield* Effect.forEach(request.projectIds, (project) =>
        requireGranted(project, { login: requester.userId, grantedProjects: requester.grantedProjects })
      )
      const now = new Date(yield* Clock.currentTimeMillis)
      const rows = new Map((yield* projectRepo.listIn(request.projectIds)).map((row) => [row.id, toLegacyProject(row)] as const))
      const { dir, encrypt } = yield* running
      const uuid = randomUUID()
      const payload = {
        uuid,
        projects: Arr.dedupe(request.projectIds).map((id) => rows.get(id) ?? projectFromName(id, now)),
        query: request.query,
        uri: request.uri,
        file: path.join(dir, archiveName(requester.userId, now)),
        password: encrypt ? newPassword() : null
      }
      // The reference mails the password; with no mail server it stays with the task, shown to its owner only.
      if (encrypt)
        yield* Effect.log(`batch download ${uuid} is encrypted; its password is kept with the task of ${requester.userId} (no mail sent)`)
      return yield* engine.submit(BatchDownloadJob, payload, { userId: requester.userId, id: uuid })
    })

    /** Deletes the archives older than batchDownloadTimeToLive hours; answers their names. */
    const removeExpired = Effect.gen(function* () {
      const { dir, timeToLiveHours } = yield* running
      const now = yield* Clock.currentTimeMillis
      return yield* deleteArchivesOlderThan(dir, now - Duration.toMillis(Duration.hours(timeToLiveHours)))
    })

    yield* removeExpired.pipe(
      Effect.tap((removed) => (removed.length === 0 ? Effect.void : Effect.log(`expired batch downloads deleted: ${removed.join(", ")}`))),
      Effect.catchAllCause((cause) => Effect.logWarning("expired batch downloads could not be deleted", cause)),
      Effect.repeat(Schedule.spaced(cleaningInterval)),
      Effect.forkScoped
    )

    return { start, removeExpired }
  })
}) {}
