import type { Readable } from "node:stream"
import { Effect } from "effect"
import yauzl from "yauzl"
import type { ExtractLimits } from "./Document.ts"
import { ExtractionFailed, failedTo } from "./ExtractErrors.ts"
import type { Source } from "./Source.ts"

/** Zip reading over yauzl: the central directory first, then one member stream at a time. */

const options: yauzl.Options = {
  lazyEntries: true,
  autoClose: false,
  decodeStrings: true,
  validateEntrySizes: true,
  strictFileNames: false
}

/** An open zip, closed with the scope. */
export const openZip = (source: Source) =>
  Effect.acquireRelease(
    Effect.async<yauzl.ZipFile, ExtractionFailed>((resume) => {
      const done = (error: Error | null, zip: yauzl.ZipFile | undefined) =>
        resume(zip === undefined || error !== null ? Effect.fail(failedTo("not a readable zip archive")(error)) : Effect.succeed(zip))
      if (source._tag === "File") yauzl.open(source.path, options, done)
      else yauzl.fromBuffer(Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength), options, done)
    }),
    (zip) => Effect.sync(() => zip.close())
  )

/** The next entry of the central directory, undefined at its end. */
export const nextEntry = (zip: yauzl.ZipFile) =>
  Effect.async<yauzl.Entry | undefined, ExtractionFailed>((resume) => {
    const cleanup = () => {
      zip.removeListener("entry", onEntry)
      zip.removeListener("end", onEnd)
      zip.removeListener("error", onError)
    }
    const onEntry = (entry: yauzl.Entry) => (cleanup(), resume(Effect.succeed(entry)))
    const onEnd = () => (cleanup(), resume(Effect.succeed(undefined)))
    const onError = (error: Error) => (cleanup(), resume(Effect.fail(failedTo("corrupt zip archive")(error))))
    zip.once("entry", onEntry)
    zip.once("end", onEnd)
    zip.once("error", onError)
    zip.readEntry()
  })

/** Every entry of the central directory (names and declared sizes; no member is decompressed). */
export const allEntries = (zip: yauzl.ZipFile) =>
  Effect.gen(function* () {
    const entries: Array<yauzl.Entry> = []
    for (let entry = yield* nextEntry(zip); entry !== undefined; entry = yield* nextEntry(zip)) entries.push(entry)
    return entries
  })

export const entryStream = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  entry.isEncrypted()
    ? Effect.fail(new ExtractionFailed({ reason: `encrypted archive: ${entry.fileName} needs a password` }))
    : Effect.async<Readable, ExtractionFailed>((resume) => {
        zip.openReadStream(entry, (error, stream) => {
          if (error !== null) return resume(Effect.fail(failedTo(`cannot read ${entry.fileName}`)(error)))
          // yauzl re-emits its inner streams' errors a tick later, possibly after the reader has stopped listening
          // (an unhandled 'error' event ends the process). The error stays on the stream (`errored`) for its reader.
          stream.on("error", () => {})
          resume(Effect.succeed(stream))
        })
      })

/** Why a member of these declared sizes is refused as a bomb, or undefined. */
export const ratioExceeded = (uncompressed: number, compressed: number, limits: ExtractLimits): string | undefined =>
  uncompressed > limits.ratioThresholdBytes && uncompressed > limits.maxRatio * Math.max(compressed, 1)
    ? `compression ratio over ${limits.maxRatio}:1 (${uncompressed} bytes from ${compressed}): refused as a zip bomb`
    : undefined

/** A member read whole (small XML parts of office files), refused when its declared size is a bomb's. */
export const readEntry = (zip: yauzl.ZipFile, entry: yauzl.Entry, limits: ExtractLimits) =>
  Effect.gen(function* () {
    const refused = ratioExceeded(entry.uncompressedSize, entry.compressedSize, limits)
    if (refused !== undefined) return yield* new ExtractionFailed({ reason: `${entry.fileName}: ${refused}` })
    if (entry.uncompressedSize > limits.maxFileBytes)
      return yield* new ExtractionFailed({ reason: `${entry.fileName} is too large (${entry.uncompressedSize} bytes)` })
    const stream = yield* entryStream(zip, entry)
    return yield* Effect.tryPromise({
      try: async () => {
        const chunks: Array<Buffer> = []
        for await (const chunk of stream) chunks.push(chunk as Buffer)
        return Buffer.concat(chunks)
      },
      catch: failedTo(`cannot read ${entry.fileName}`)
    })
  })

/** The names of a zip's members, for telling OOXML and ODF packages from plain zips. */
export const zipEntryNames = (source: Source) =>
  Effect.scoped(
    Effect.gen(function* () {
      const zip = yield* openZip(source)
      return (yield* allEntries(zip)).map((entry) => entry.fileName)
    })
  )

/** Whether the bytes start like a zip: a local file header, or the end record of an empty archive. */
export const looksLikeZip = (head: Uint8Array) =>
  head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))
