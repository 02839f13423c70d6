import * as fs from "node:fs"
import { Readable, Writable } from "node:stream"
import { Effect, Schema, type Scope } from "effect"
import { partialFile } from "./BatchDownload.ts"
import { lazyModule } from "../../LazyModule.ts"

/**
 * zip.js loads with the first archive: its 49 modules were part of every server's start-up (and of every test
 * file with a server), most of which never writes a batch download.
 */
const loadZipJs = lazyModule(() =>
  import("@zip.js/zip.js").then((library) => {
    // Entries are compressed on the calling thread: the service runs on Node, where zip.js has no web workers.
    library.configure({ useWebWorkers: false })
    return library
  })
)

/** The archive could not be written (disk full, folder not writable...): the download fails. */
export class ArchiveWriteFailed extends Schema.TaggedError<ArchiveWriteFailed>()("ArchiveWriteFailed", {
  file: Schema.String,
  message: Schema.String
}) {}

/** What an entry holds: a file streamed from disk, or bytes already in memory (an embedded document). */
export type EntryContent = { readonly _tag: "File"; readonly path: string } | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }

export interface ZipArchive {
  /** Adds one entry; the file is streamed, never read whole. */
  readonly add: (name: string, content: EntryContent) => Effect.Effect<void, ArchiveWriteFailed>
  /** Writes the zip's central directory and gives the archive its final name. */
  readonly finish: Effect.Effect<void, ArchiveWriteFailed>
}

const failure = (file: string) => (cause: unknown) =>
  new ArchiveWriteFailed({ file, message: cause instanceof Error ? cause.message : String(cause) })

const readerOf = ({ Uint8ArrayReader }: typeof import("@zip.js/zip.js"), content: EntryContent) =>
  content._tag === "Bytes"
    ? new Uint8ArrayReader(content.bytes)
    : (Readable.toWeb(fs.createReadStream(content.path)) as ReadableStream<Uint8Array>)

/**
 * Destroys the stream and waits until its file is closed. The file is opened asynchronously: removing it before
 * the stream has closed could run before the open and leave the file behind.
 */
const closed = (stream: fs.WriteStream) =>
  Effect.async<void>((resume) => {
    if (stream.closed) return resume(Effect.void)
    stream.once("close", () => resume(Effect.void))
    stream.destroy()
  })

/**
 * A zip written under a temporary name next to `file`, its entries AES-256 encrypted when a password is given.
 * Unless `finish` succeeded, closing the scope (a stop, a failure) deletes the temporary file: no half-written
 * archive is ever left under the final name.
 */
export const openZipArchive = (file: string, password: string | null): Effect.Effect<ZipArchive, ArchiveWriteFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const library = yield* loadZipJs
    const partial = partialFile(file)
    let complete = false
    const output = yield* Effect.acquireRelease(Effect.try({ try: () => fs.createWriteStream(partial), catch: failure(file) }), (stream) =>
      closed(stream).pipe(Effect.zipRight(complete ? Effect.void : Effect.promise(() => fs.promises.rm(partial, { force: true }))))
    )
    const writer = new library.ZipWriter(Writable.toWeb(output), password === null ? {} : { password, encryptionStrength: 3 })

    const add = (name: string, content: EntryContent) =>
      Effect.tryPromise({ try: (signal) => writer.add(name, readerOf(library, content), { signal }), catch: failure(file) }).pipe(
        Effect.asVoid
      )

    const finish = Effect.tryPromise({
      try: async () => {
        await writer.close()
        await fs.promises.rename(partial, file)
      },
      catch: failure(file)
    }).pipe(Effect.tap(() => Effect.sync(() => (complete = true))))

    return { add, finish }
  })
