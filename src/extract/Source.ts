import { randomUUID } from "node:crypto"
import { closeSync, constants, createReadStream, createWriteStream, fstatSync, openSync, readSync } from "node:fs"
import { open, rm } from "node:fs/promises"
import * as path from "node:path"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { Effect } from "effect"
import { contentDigests } from "./DocumentId.ts"
import { describe, ExtractionFailed, failedTo } from "./ExtractErrors.ts"

/** The bytes of a document: a file (roots, archive members spooled to disk) or a buffer (attachments). */
export type Source =
  | { readonly _tag: "File"; readonly path: string; readonly size: number }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array; readonly path?: string | undefined }

export const fileSource = (file: string, size: number): Source => ({ _tag: "File", path: file, size })
/** Bytes in memory; `path` when they are also a file on disk (a small file read whole). */
export const bytesSource = (bytes: Uint8Array, path?: string): Source => ({ _tag: "Bytes", bytes, path })

export const sourceSize = (source: Source): number => (source._tag === "File" ? source.size : source.bytes.byteLength)

export const openStream = (source: Source): Readable =>
  source._tag === "File" ? createReadStream(source.path) : Readable.from([source.bytes])

/**
 * A file on disk as a source: read whole into memory when it has at most `wholeUpTo` bytes, so that hashing,
 * detection and parsing cost no further reads. The open, fstat and read are synchronous: a few microseconds each for
 * a small file, where every call through the thread pool costs 25–50 µs of CPU in hand-offs, several times the
 * reading itself (see docs/design-decisions.md). Anything but a regular file is refused.
 */
export const diskSource = (file: string, wholeUpTo: number): Effect.Effect<Source, ExtractionFailed> =>
  Effect.try({
    try: () => {
      // Non-blocking, so that opening a FIFO does not wait for a writer before it is refused below.
      const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
      try {
        const stats = fstatSync(fd)
        if (!stats.isFile()) return undefined
        if (stats.size > wholeUpTo) return fileSource(file, stats.size)
        const bytes = Buffer.allocUnsafe(stats.size)
        let filled = 0
        while (filled < stats.size) {
          const count = readSync(fd, bytes, filled, stats.size - filled, filled)
          if (count === 0) break
          filled += count
        }
        return bytesSource(bytes.subarray(0, filled), file)
      } finally {
        closeSync(fd)
      }
    },
    catch: (cause) => new ExtractionFailed({ reason: describe(cause) })
  }).pipe(
    Effect.flatMap((source) =>
      source === undefined ? Effect.fail(new ExtractionFailed({ reason: "not a regular file" })) : Effect.succeed(source)
    )
  )

/** The first `length` bytes (fewer for a shorter document). */
export const readPrefix = (source: Source, length: number): Effect.Effect<Uint8Array, ExtractionFailed> => {
  if (source._tag === "Bytes") return Effect.succeed(source.bytes.subarray(0, length))
  const wanted = Math.min(length, source.size)
  return Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => open(source.path, "r"), catch: failedTo("cannot open the file") }),
    (handle) =>
      Effect.tryPromise({
        try: async () => {
          // Not zeroed first: only the bytes read are returned.
          const buffer = Buffer.allocUnsafe(wanted)
          let filled = 0
          while (filled < wanted) {
            const { bytesRead } = await handle.read(buffer, filled, wanted - filled, filled)
            if (bytesRead === 0) break
            filled += bytesRead
          }
          return buffer.subarray(0, filled)
        },
        catch: failedTo("cannot read the file")
      }),
    (handle) => Effect.promise(() => handle.close())
  )
}

/**
 * A file of at most `inMemoryUpTo` bytes read into memory, so that hashing and parsing share one read; anything
 * else as it is.
 */
export const readOnce = (source: Source, inMemoryUpTo: number): Effect.Effect<Source, ExtractionFailed> =>
  source._tag === "File" && source.size <= inMemoryUpTo
    ? Effect.map(readPrefix(source, source.size), (bytes) => bytesSource(bytes, source.path))
    : Effect.succeed(source)

/** The whole document, refused beyond `cap` bytes so one parser cannot take all the memory. */
export const readAll = (source: Source, cap: number): Effect.Effect<Uint8Array, ExtractionFailed> =>
  sourceSize(source) > cap
    ? Effect.fail(new ExtractionFailed({ reason: `too large to extract (${sourceSize(source)} bytes, limit ${cap})` }))
    : readPrefix(source, cap)

/** The digest that identifies the content in the project, and the project-free one of Duplicate records. */
export const digestSource = (source: Source, project: string) => {
  const digests = contentDigests(project)
  // Bytes in memory are hashed at once: a stream over them costs far more than the hashing itself.
  if (source._tag === "Bytes") {
    digests.update(source.bytes)
    return Effect.succeed(digests.finish())
  }
  return Effect.tryPromise({
    try: async () => {
      for await (const chunk of openStream(source)) digests.update(chunk as Uint8Array)
      return digests.finish()
    },
    catch: failedTo("cannot read the content")
  })
}

export const tempPath = (dir: string) => path.join(dir, randomUUID())

export const removeFile = (file: string) => Effect.tryPromise(() => rm(file, { force: true })).pipe(Effect.ignoreLogged)

/** Counts bytes going through and stops the stream past `limit`, with `reason(count)` as the error. */
export const byteLimiter = (limit: (count: number) => string | undefined) => {
  let count = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count += chunk.byteLength
      const exceeded = limit(count)
      if (exceeded === undefined) callback(null, chunk)
      else callback(new Error(exceeded))
    }
  })
}

/**
 * Writes a stream to a new temporary file through transforms (decompression, limits); the file is removed
 * if anything fails.
 */
export const spool = (input: Readable, dir: string, transforms: ReadonlyArray<Transform>) => {
  const file = tempPath(dir)
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.byteLength
      callback(null, chunk)
    }
  })
  return Effect.tryPromise({
    // Interrupted, the copy stops: the signal destroys every stream of the pipeline.
    try: (signal) => pipeline([input, ...transforms, counter, createWriteStream(file)], { signal }),
    catch: (cause) => new ExtractionFailed({ reason: cause instanceof Error ? cause.message : String(cause) })
  }).pipe(
    Effect.map(() => fileSource(file, size)),
    Effect.tapError(() => removeFile(file))
  )
}
