import { Readable, type Transform } from "node:stream"
import { createGunzip } from "node:zlib"
import { Effect } from "effect"
import tar from "tar-stream"
import { mime } from "./ContentType.ts"
import type { ParseContext, Parser } from "./Document.ts"
import { ExtractionFailed, failedTo } from "./ExtractErrors.ts"
import { byteLimiter, openStream, readPrefix, removeFile, sourceSize, spool } from "./Source.ts"
import { entryStream, nextEntry, openZip, ratioExceeded } from "./Zip.ts"

/**
 * Archives: every member is streamed to a temporary file, extracted as an embedded document (recursively)
 * and removed before the next one, so neither memory nor disk holds more than one member at a time.
 * Members count against one budget per file on disk (entries, uncompressed bytes) and against the
 * compression ratio limit, from their declared sizes first and from the bytes actually inflated after:
 * a zip bomb is refused before it is expanded, and one that lies about its sizes is cut off while streaming.
 */

const refuse = (reason: string) => Effect.fail(new ExtractionFailed({ reason }))

/** Counts a member against the budget before reading it, from its declared sizes. */
const admit = (context: ParseContext, name: string, declared: number, compressed: number | undefined) => {
  const { budget, limits } = context
  budget.entries++
  if (budget.entries > limits.maxEntries) return refuse(`more than ${limits.maxEntries} archive members: refused`)
  const ratio = compressed === undefined ? undefined : ratioExceeded(declared, compressed, limits)
  if (ratio !== undefined) return refuse(`${name}: ${ratio}`)
  if (budget.bytes + declared > limits.maxTotalBytes)
    return refuse(`${name}: archive contents exceed ${limits.maxTotalBytes} bytes uncompressed: refused`)
  return Effect.void
}

/** Stops a member's stream once its real size breaks the budget or the ratio, whatever its header said. */
const limiter = (context: ParseContext, compressed: number | undefined) => {
  const start = context.budget.bytes
  return byteLimiter((count) => {
    if (start + count > context.limits.maxTotalBytes)
      return `archive contents exceed ${context.limits.maxTotalBytes} bytes uncompressed: refused`
    return compressed === undefined ? undefined : ratioExceeded(count, compressed, context.limits)
  })
}

/**
 * Spools a member and extracts it. The member's stream is opened only once the temporary folder exists, right
 * before the pipeline that reads it: a stream left waiting can fail (a zip member inflating past its declared
 * size) with no one listening, which would crash the process.
 */
const embedMember = (
  context: ParseContext,
  open: Effect.Effect<Readable, ExtractionFailed>,
  name: string,
  compressed: number | undefined,
  transforms: ReadonlyArray<Transform> = []
) =>
  Effect.acquireUseRelease(
    Effect.flatMap(context.tempDir, (dir) =>
      Effect.flatMap(open, (input) =>
        spool(input, dir, [...transforms, limiter(context, compressed)]).pipe(
          Effect.mapError((error) => new ExtractionFailed({ reason: `${name}: ${error.reason}` }))
        )
      )
    ),
    (member) => {
      context.budget.bytes += sourceSize(member)
      return context.embed({ source: member, name })
    },
    (member) => (member._tag === "File" ? removeFile(member.path) : Effect.void)
  )

const extractZip: Parser = (source, context) =>
  Effect.scoped(
    Effect.gen(function* () {
      const zip = yield* openZip(source)
      const names: Array<string> = []
      for (let entry = yield* nextEntry(zip); entry !== undefined; entry = yield* nextEntry(zip)) {
        if (entry.fileName.endsWith("/")) continue
        names.push(entry.fileName)
        yield* admit(context, entry.fileName, entry.uncompressedSize, entry.compressedSize)
        yield* embedMember(context, entryStream(zip, entry), entry.fileName, entry.compressedSize)
      }
      return { text: names.join("\n") }
    })
  )

const extractTar: Parser = (source, context) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const extract = tar.extract()
      const input = openStream(source)
      input.on("error", (error) => extract.destroy(error))
      input.pipe(extract)
      return { extract, input }
    }),
    ({ extract }) =>
      Effect.gen(function* () {
        const iterator = extract[Symbol.asyncIterator]()
        const names: Array<string> = []
        for (;;) {
          const next = yield* Effect.tryPromise({ try: () => iterator.next(), catch: failedTo("corrupt tar archive") })
          if (next.done === true) break
          const entry = next.value
          if (entry.header.type !== "file" && entry.header.type !== "contiguous-file") {
            entry.resume()
            continue
          }
          names.push(entry.header.name)
          yield* admit(context, entry.header.name, entry.header.size ?? 0, undefined)
          yield* embedMember(
            context,
            Effect.sync(() => Readable.from(entry)),
            entry.header.name,
            undefined
          )
        }
        return { text: names.join("\n") }
      }),
    ({ extract, input }) =>
      Effect.sync(() => {
        input.destroy()
        extract.destroy()
      })
  )

/** The name stored in a gzip header (FNAME), if any. */
const gzipName = (head: Uint8Array) => {
  const bytes = Buffer.from(head)
  if (bytes.byteLength < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || ((bytes[3] ?? 0) & 0x08) === 0) return undefined
  const start = ((bytes[3] ?? 0) & 0x04) === 0 ? 10 : 12 + bytes.readUInt16LE(10)
  const end = bytes.indexOf(0, start)
  return end < 0 ? undefined : bytes.toString("latin1", start, end)
}

/** Tika's name for a decompressed file: `x.tgz` → `x.tar`, `x.gz` → `x`. */
const decompressedName = (name: string) =>
  /\.tgz$/i.test(name) ? name.replace(/\.tgz$/i, ".tar") : /\.gz$/i.test(name) ? name.replace(/\.gz$/i, "") : name

/** A gzip file holds one compressed document, extracted as its only child (a tar for `.tar.gz`). */
const extractGzip: Parser = (source, context) =>
  Effect.gen(function* () {
    const name = gzipName(yield* readPrefix(source, 1024)) ?? decompressedName(context.name.split("/").pop() ?? context.name)
    yield* admit(context, name, 0, undefined)
    yield* embedMember(
      context,
      Effect.sync(() => openStream(source)),
      name,
      sourceSize(source),
      [createGunzip()]
    )
    return { text: "" }
  })

export const extractArchive: Parser = (source, context) =>
  context.contentType === mime.gzip
    ? extractGzip(source, context)
    : context.contentType === mime.tar
      ? extractTar(source, context)
      : extractZip(source, context)
