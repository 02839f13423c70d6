import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { defaultLimits } from "../../extract/Document.ts"
import { bytesSource } from "../../extract/Source.ts"
import { allEntries, openZip, readEntry } from "../../extract/Zip.ts"
import { imageSize } from "./ImageSize.ts"
import { InvalidUpload } from "./ReviewErrors.ts"
import { lazyModule } from "../../LazyModule.ts"

/** The media types a record may show, sniffed from the content. */
const allowedTypes = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/svg+xml",
  "image/webp",
  "video/x-msvideo",
  "video/mp4",
  "video/mpeg",
  "video/ogv",
  "video/webm"
])

/** Where media files live: `<dataDir>/review-media/<file>`, `file` being `task/<taskId>/<name>`. */
export const mediaRoot = (dataDir: string) => path.join(dataDir, "review-media")

const looksLikeSvg = (bytes: Buffer) =>
  /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(bytes.toString("utf8", 0, 1024))

/** file-type loads with the first upload, not at every server's start. */
const loadFileType = lazyModule(() => import("file-type"))

const sniff = (bytes: Buffer) =>
  loadFileType.pipe(
    Effect.flatMap(({ fileTypeFromBuffer }) => Effect.promise(() => fileTypeFromBuffer(bytes))),
    Effect.map((detected) => detected?.mime ?? (looksLikeSvg(bytes) ? "image/svg+xml" : undefined))
  )

interface MediaFile {
  readonly uid: string
  readonly recordId: number
  readonly mimeType: string
  readonly file: string
  readonly width: number | null
  readonly height: number | null
}

/**
 * Attaches the files of a ZIP to a task's records: a file whose name without extension equals a record's uid
 * becomes one of its media. Files of other types, or matching no record, are counted as ignored. With
 * `onlyOnePerRecord`, media already holding that uid in the task are replaced. The rows are written in one
 * transaction; the files written for a failed upload are removed.
 */
export const uploadMedia = (dataDir: string, taskId: number, zipBytes: Buffer, onlyOnePerRecord: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const records = yield* sql<{ id: number; uid: string }>`
      SELECT DISTINCT ON (uid) id, uid FROM review_task_records WHERE task_id = ${taskId} AND uid IS NOT NULL ORDER BY uid, id`
    const recordOf = new Map(records.map((record) => [record.uid, record.id]))
    const folder = path.join("task", String(taskId))
    yield* Effect.promise(() => fs.mkdir(path.join(mediaRoot(dataDir), folder), { recursive: true }))
    const accepted: Array<MediaFile> = []
    let ignored = 0
    yield* Effect.scoped(
      Effect.gen(function* () {
        const zip = yield* openZip(bytesSource(zipBytes))
        for (const entry of yield* allEntries(zip)) {
          if (entry.fileName.endsWith("/")) continue
          const name = path.posix.basename(entry.fileName)
          const uid = name.includes(".") ? name.slice(0, name.lastIndexOf(".")) : name
          const recordId = recordOf.get(uid)
          const bytes = yield* readEntry(zip, entry, defaultLimits)
          const mimeType = yield* sniff(bytes)
          if (recordId === undefined || mimeType === undefined || !allowedTypes.has(mimeType)) {
            ignored += 1
            continue
          }
          const file = path.posix.join(folder, `${randomUUID()}-${name}`)
          yield* Effect.promise(() => fs.writeFile(path.join(mediaRoot(dataDir), file), bytes))
          const size = mimeType.startsWith("image/") ? imageSize(bytes) : undefined
          accepted.push({ uid, recordId, mimeType, file, width: size?.width || null, height: size?.height || null })
        }
      })
    ).pipe(Effect.mapError((error) => new InvalidUpload({ reason: `The ZIP file cannot be read: ${error.reason}`, field: "zip_file" })))
    const removeWritten = Effect.promise(() =>
      Promise.all(accepted.map((media) => fs.rm(path.join(mediaRoot(dataDir), media.file), { force: true })))
    )
    const replaced = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          const uids = [...new Set(accepted.map((media) => media.uid))]
          const removed = onlyOnePerRecord
            ? yield* sql<{
                file: string
              }>`DELETE FROM review_task_record_media WHERE task_id = ${taskId} AND uid = ANY(${uids}::text[]) RETURNING file`
            : []
          for (const media of accepted) {
            yield* sql`
              INSERT INTO review_task_record_media (task_id, task_record_id, file, uid, mime_type, width, height)
              VALUES (${taskId}, ${media.recordId}, ${media.file}, ${media.uid}, ${media.mimeType}, ${media.width}, ${media.height})`
          }
          return removed
        })
      )
      .pipe(Effect.tapError(() => removeWritten))
    yield* Effect.promise(() => Promise.all(replaced.map((media) => fs.rm(path.join(mediaRoot(dataDir), media.file), { force: true }))))
    return { created: accepted.length, replaced: replaced.length, ignored }
  }).pipe(dieOnSqlError)
