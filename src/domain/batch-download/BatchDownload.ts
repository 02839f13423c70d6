import { randomInt } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { Effect, Option, Schema } from "effect"
import { LegacyProject } from "../project/Project.ts"
import type { Task } from "../task/Task.ts"
import type { LegacyUser } from "../user/User.ts"

/** The task kind's name; tasks of this kind carry a batch download payload. */
export const batchDownloadKind = "batchDownload"

/** A query string (searched like a batch-search line), or an Elasticsearch query object used as it is. */
export const BatchDownloadQuery = Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
export type BatchDownloadQuery = typeof BatchDownloadQuery.Type

/** What a batch download task needs to run and to be shown: everything is fixed when it is created. */
export const BatchDownloadPayload = Schema.Struct({
  uuid: Schema.String,
  /** The projects searched, as they were when the download was asked for. */
  projects: Schema.Array(LegacyProject),
  query: BatchDownloadQuery,
  /** The front end's search URI, kept for display. */
  uri: Schema.String,
  /** Absolute path of the zip to write. */
  file: Schema.String,
  /** The AES password of the zip's entries; null when the archive is not encrypted. */
  password: Schema.NullOr(Schema.String)
})
export type BatchDownloadPayload = typeof BatchDownloadPayload.Type

/** Archives are named `archive_<user>_<UTC date-time, ':' as '_'>[GMT].zip`, as the reference names them. */
export const archiveName = (userId: string, now: Date) =>
  `archive_${userId.replace(/[/\\]/g, "_")}_${now.toISOString().replaceAll(":", "_")}[GMT].zip`

/** Names the expiry cleaner may delete: finished archives and temporary files of interrupted ones. */
export const isArchiveName = (name: string) => /^archive_.+_.+\.zip$/.test(name) || isPartialName(name)

/** An archive is written under this name and renamed when complete, so a stopped download leaves no zip. */
export const partialFile = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.part`)
const isPartialName = (name: string) => /^\.archive_.+\.zip\.part$/.test(name)

const passwordAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/** A random 16-character alphanumeric password, as the reference generates for encrypted archives. */
export const newPassword = () => Array.from({ length: 16 }, () => passwordAlphabet[randomInt(passwordAlphabet.length)]).join("")

/** The query as the task properties show it: always a string, an object as compact JSON. */
export const queryText = (query: BatchDownloadQuery) => (typeof query === "string" ? query : JSON.stringify(query))

const fileSize = (file: string) =>
  Effect.promise(() =>
    fs.stat(file).then(
      (info) => Option.some(info.size),
      () => Option.none<number>()
    )
  )

/**
 * `properties.batchDownload` of a task view, read live: `exists` says whether the
 * zip is on disk now (false once it expired), `zipSize` is its size, or the size written so far while it runs.
 * The password is shown to the owner (task views are only ever the caller's own), who has no mail to get it from.
 */
export const batchDownloadProperties = (task: Task, user: LegacyUser) =>
  Effect.gen(function* () {
    if (task.kind !== batchDownloadKind) return undefined
    const payload = yield* Schema.decodeUnknownOption(BatchDownloadPayload)(task.payload)
    const finished = yield* fileSize(payload.file)
    const size = Option.isSome(finished) ? finished : yield* fileSize(partialFile(payload.file))
    return {
      batchDownload: {
        uuid: payload.uuid,
        projects: payload.projects,
        filename: pathToFileURL(payload.file).href,
        query: queryText(payload.query),
        uri: payload.uri,
        user,
        encrypted: payload.password !== null,
        ...(payload.password === null ? {} : { password: payload.password }),
        zipSize: Option.getOrElse(size, () => 0),
        exists: Option.isSome(finished)
      }
    }
  }).pipe(Effect.orElseSucceed(() => undefined))
