import { createReadStream, createWriteStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip } from "node:zlib"
import { Effect, Either } from "effect"
import tar from "tar-stream"
import yauzl from "yauzl"
import { describe } from "../../extract/ExtractErrors.ts"
import { entryStream, nextEntry } from "../../extract/Zip.ts"
import { memberPath } from "../PathGuard.ts"
import { DeliverableFilesystemError, DeliverableRefused } from "./DeliverableErrors.ts"

/** Bounds of one unpacked plugin: its total declared size and its number of entries. */
export interface UnpackLimits {
  readonly maxBytes: number
  readonly maxEntries: number
}

export type ArchiveFormat = "zip" | "tar.gz" | "tar"

/** The archive format from the first bytes of a file (never from its name, which a URL may not carry). */
export const detectFormat = (head: Uint8Array): ArchiveFormat | undefined => {
  const text = Buffer.from(head).toString("latin1")
  if (text.startsWith("PK\x03\x04") || text.startsWith("PK\x05\x06")) return "zip"
  if (head[0] === 0x1f && head[1] === 0x8b) return "tar.gz"
  if (text.slice(257, 262) === "ustar") return "tar"
  return undefined
}

const fsFailure = (action: string) => (error: unknown) => new DeliverableFilesystemError({ action, reason: describe(error) })

/** The first 512 bytes of a file: enough for the zip, gzip and tar signatures. */
export const readHead = (file: string) =>
  Effect.tryPromise({
    try: async () => {
      const handle = await fs.open(file, "r")
      const buffer = Buffer.alloc(512)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0).finally(() => handle.close())
      return buffer.subarray(0, bytesRead)
    },
    catch: fsFailure(`read ${file}`)
  })

/** The `.` entries of tar files name the root itself: nothing to create. */
const isRootName = (name: string) => path.posix.normalize(name).replace(/\/$/, "") === "."

/**
 * Where an archive entry is written below `root`, or undefined when its name would leave `root`: absolute
 * names, `..` segments, backslashes (a separator elsewhere) and NUL bytes are all refused (zip-slip).
 */
export const safeTarget = (root: string, name: string): string | undefined => Either.getOrUndefined(memberPath(root, name))

const writeEntry = (target: string, source: NodeJS.ReadableStream) =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(path.dirname(target), { recursive: true })
      await pipeline(source, createWriteStream(target))
    },
    catch: fsFailure(`write ${target}`)
  })

/** Checks one entry against the limits and the root; answers where to write it. */
const admit = (
  url: string,
  root: string,
  name: string,
  declaredSize: number,
  totals: { bytes: number; entries: number },
  limits: UnpackLimits
) => {
  const refuse = (reason: string) => Effect.fail(new DeliverableRefused({ url, reason }))
  totals.entries += 1
  totals.bytes += declaredSize
  if (totals.entries > limits.maxEntries) return refuse(`more than ${limits.maxEntries} entries`)
  if (totals.bytes > limits.maxBytes) return refuse(`unpacks to more than ${limits.maxBytes} bytes (deliverableMaxSize)`)
  const target = safeTarget(root, name)
  return target === undefined
    ? refuse(`the entry ${JSON.stringify(name)} would be written outside the plugin directory`)
    : Effect.succeed(target)
}

const symbolicLinkMode = 0o120000

/**
 * A zip opened without yauzl's own name checks (decodeStrings off), so that every entry name goes through
 * `admit` and a refusal says which entry would have escaped.
 */
const openZip = (url: string, file: string) =>
  Effect.acquireRelease(
    Effect.async<yauzl.ZipFile, DeliverableRefused>((resume) =>
      yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (error, zip) =>
        resume(
          zip === undefined || error !== null
            ? Effect.fail(new DeliverableRefused({ url, reason: `not a readable zip archive: ${describe(error)}` }))
            : Effect.succeed(zip)
        )
      )
    ),
    (zip) => Effect.sync(() => zip.close())
  )

/** The entry's name as written, backslashes kept (they are refused rather than taken for separators). */
const entryName = (entry: yauzl.Entry) => yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true)

const unpackZip = (url: string, file: string, root: string, limits: UnpackLimits) =>
  Effect.scoped(
    Effect.gen(function* () {
      const refused = (error: { readonly message: string }) => new DeliverableRefused({ url, reason: error.message })
      const zip = yield* openZip(url, file)
      const next = nextEntry(zip).pipe(Effect.mapError(refused))
      const totals = { bytes: 0, entries: 0 }
      for (let entry = yield* next; entry !== undefined; entry = yield* next) {
        const name = entryName(entry)
        if (isRootName(name)) continue
        if (((entry.externalFileAttributes >>> 16) & 0o170000) === symbolicLinkMode) {
          return yield* new DeliverableRefused({ url, reason: `the entry ${JSON.stringify(name)} is a symbolic link` })
        }
        const target = yield* admit(url, root, name, entry.uncompressedSize, totals, limits)
        if (name.endsWith("/")) {
          yield* Effect.tryPromise({ try: () => fs.mkdir(target, { recursive: true }), catch: fsFailure(`create ${target}`) })
        } else {
          yield* writeEntry(target, yield* entryStream(zip, entry).pipe(Effect.mapError(refused)))
        }
      }
    })
  )

/**
 * Tar entries arrive one by one from the stream; each is checked with `admit` before anything is written.
 * Links are refused: one pointing outside the root would let a later entry be written through it.
 */
const unpackTar = (url: string, file: string, gzipped: boolean, root: string, limits: UnpackLimits) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const extract = tar.extract()
      const input = createReadStream(file)
      const bytes = gzipped ? input.pipe(createGunzip()) : input
      input.on("error", (error) => extract.destroy(error))
      bytes.on("error", (error: Error) => extract.destroy(error))
      bytes.pipe(extract)
      return { extract, input }
    }),
    ({ extract }) =>
      Effect.gen(function* () {
        const entries = extract[Symbol.asyncIterator]()
        const totals = { bytes: 0, entries: 0 }
        for (;;) {
          const next = yield* Effect.tryPromise({
            try: () => entries.next(),
            catch: (error) => new DeliverableRefused({ url, reason: `not a readable tar archive: ${describe(error)}` })
          })
          if (next.done === true) return
          const entry = next.value
          const { name, type, size } = entry.header
          if (type === "symlink" || type === "link") {
            return yield* new DeliverableRefused({ url, reason: `the entry ${JSON.stringify(name)} is a link` })
          }
          if (isRootName(name) || (type !== "file" && type !== "contiguous-file" && type !== "directory")) {
            entry.resume()
            continue
          }
          const target = yield* admit(url, root, name, size ?? 0, totals, limits)
          if (type === "directory") {
            entry.resume()
            yield* Effect.tryPromise({ try: () => fs.mkdir(target, { recursive: true }), catch: fsFailure(`create ${target}`) })
          } else {
            yield* writeEntry(target, Readable.from(entry))
          }
        }
      }),
    // On a refusal the rest of the archive is not read.
    ({ extract, input }) =>
      Effect.sync(() => {
        input.destroy()
        extract.destroy()
      })
  )

/**
 * Unpacks a zip, tar or tar.gz archive into `root` (an empty directory). Stops at the first refused entry;
 * the caller removes the half-filled `root` with its staging folder.
 */
export const unpack = (url: string, file: string, root: string, limits: UnpackLimits) =>
  Effect.gen(function* () {
    const format = detectFormat(yield* readHead(file))
    if (format === undefined) return yield* new DeliverableRefused({ url, reason: "not a zip, tar or tar.gz archive" })
    if (format === "zip") return yield* unpackZip(url, file, root, limits)
    return yield* unpackTar(url, file, format === "tar.gz", root, limits)
  })
