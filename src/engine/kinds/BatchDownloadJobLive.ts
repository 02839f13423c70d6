import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect, Option, SynchronizedRef } from "effect"
import { parseSize } from "../../config/Options.ts"
import { Settings } from "../../config/Settings.ts"
import type { BatchDownloadQuery } from "../../domain/batch-download/BatchDownload.ts"
import { type EntryContent, openZipArchive } from "../../domain/batch-download/ZipArchive.ts"
import { errorReason, hitsOf, searchBody, type Hit } from "../../domain/batch-search/BatchQuery.ts"
import { TaskFile } from "../../domain/task/Task.ts"
import { Extractor } from "../../extract/Extractor.ts"
import { SearchBackend } from "../../search/SearchBackend.ts"
import { BatchDownloadJob, BatchDownloadSearchFailed } from "./BatchDownloadJob.ts"

/** Documents asked of the search backend per request (the reference scrolls at most 3 500 at a time). */
const pageSize = 1_000
/** Hits reachable by from/size paging, as Elasticsearch's index.max_result_window. */
const resultWindow = 10_000

/** A string is a batch-search line with no options; an object replaces the whole query (no Document filter). */
const searchRequestBody = (query: BatchDownloadQuery, from: number, size: number) =>
  typeof query === "string"
    ? searchBody(query, { phraseMatches: false, fuzziness: 0, fileTypes: [], paths: [], tags: [] }, from, size)
    : { query, _source: { excludes: ["content"] }, from, size }

/** `hits.total` of a response asked with track_total_hits: an object with a value, or a number. */
const totalOf = (body: unknown) => {
  const hits = typeof body === "object" && body !== null && "hits" in body ? body.hits : undefined
  const total = typeof hits === "object" && hits !== null && "total" in hits ? hits.total : undefined
  if (typeof total === "number") return total
  return typeof total === "object" && total !== null && "value" in total && typeof total.value === "number" ? total.value : 0
}

export const BatchDownloadJobLive = BatchDownloadJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const backend = yield* SearchBackend
    const extractor = yield* Extractor
    const settings = yield* Settings
    const current = yield* SynchronizedRef.get(settings.current)
    const maxFiles = Number(current.batchDownloadMaxNbFiles ?? "10000")
    const maxBytes = parseSize(current.batchDownloadMaxSize ?? "100M")
    const indices = payload.projects.map((project) => project.name).join(",")

    const searchPage = (from: number) =>
      Effect.gen(function* () {
        const size = Math.min(pageSize, resultWindow - from)
        const body = { ...searchRequestBody(payload.query, from, size), ...(from === 0 ? { track_total_hits: true } : {}) }
        const response = yield* backend.handle({ method: "POST", path: `${indices}/_search`, query: new URLSearchParams(), body })
        if (response.status !== 200) return yield* new BatchDownloadSearchFailed({ message: errorReason(response.body) })
        const hits = hitsOf(response.body)
        return { hits, total: totalOf(response.body), complete: hits.length < size }
      })

    /** A document's bytes: its file, or for an embedded one what its root file yields; none when unreadable. */
    const contentOf = (hit: Hit): Effect.Effect<Option.Option<{ content: EntryContent; size: number }>> =>
      hit.id === hit.rootId
        ? Effect.promise(() => fs.stat(hit.path).then(Option.some, () => Option.none<Stats>())).pipe(
            Effect.map(Option.filter((info) => info.isFile())),
            Effect.map(Option.map((info) => ({ content: { _tag: "File" as const, path: hit.path }, size: info.size })))
          )
        : extractor.embedded(hit.path, { project: hit.project, ocr: false, maxContentLength: -1 }, hit.id).pipe(
            Effect.map(({ bytes }) => Option.some({ content: { _tag: "Bytes" as const, bytes }, size: bytes.length })),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning(`batch download ${payload.uuid}: ${hit.id} skipped: ${error.message}`), Option.none())
            )
          )

    const first = yield* searchPage(0)
    if (first.hits.length === 0) return null

    yield* Effect.promise(() => fs.mkdir(path.dirname(payload.file), { recursive: true }))
    const archive = yield* openZipArchive(payload.file, payload.password)
    const names = new Set<string>()
    let addedBytes = 0
    let page = first
    let from = 0
    const full = () => names.size >= maxFiles || addedBytes > maxBytes
    for (;;) {
      for (const hit of page.hits) {
        if (full()) break
        const name = hit.path.replace(/^\/+/, "")
        if (name === "" || names.has(name)) continue
        const found = yield* contentOf(hit)
        if (Option.isNone(found)) continue
        yield* archive.add(name, found.value.content)
        names.add(name)
        addedBytes += found.value.size
        yield* context.reportProgress(Math.min(1, names.size / Math.max(first.total, 1)))
      }
      from += page.hits.length
      if (full() || page.complete || from >= resultWindow) break
      page = yield* searchPage(from)
    }
    yield* archive.finish
    return TaskFile.make({ path: payload.file })
  })
)
