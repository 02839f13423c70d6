import { statSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Either, Layer } from "effect"
import { makeWorkerPool } from "../workers/WorkerPool.ts"
import type { ExtractedDocument, ExtractOptions } from "./Document.ts"
import { DocumentUnreadable } from "./ExtractErrors.ts"
import type { ExtractionAnswer, ExtractionRequest } from "./ExtractionWorker.ts"
import { Extractor } from "./Extractor.ts"

/** From which size a claim's files are extracted on a worker thread. */
export interface OffThreadSizes {
  /**
   * The claim's files together: below it they cost this thread a few milliseconds (a 20 KB HTML page about 1.5 ms),
   * taken one at a time between the requests it serves, and a worker's first start (about 2 s) is not worth it.
   */
  readonly claimBytes: number
  /** Any one PDF, office file or archive, whose parsers cost far more a byte (a small PDF still about 3 ms). */
  readonly slowTypeBytes: number
}

const defaultSizes: OffThreadSizes = { claimBytes: 256 * 1024, slowTypeBytes: 64 * 1024 }

const slowExtensions = new Set([
  ".pdf",
  ".doc",
  ".docx",
  ".xls",
  ".xlsx",
  ".ppt",
  ".pptx",
  ".odt",
  ".ods",
  ".odp",
  ".zip",
  ".tar",
  ".gz",
  ".tgz",
  ".mbox"
])

/**
 * A turn of the event loop for the requests waiting on it. Effect resumes fibers through microtasks, which run before
 * any I/O callback, so without it a claim's files (and the promise chains of their parsers) were extracted back to
 * back: the server answered nothing for up to 1.7 s while an index task ran.
 */
const eventLoopTurn = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

/** A file's size, 0 when it cannot be read (its extraction then says why). */
const sizeOf = (filePath: string) => {
  // A synchronous stat costs microseconds of this thread; a promised one about ten times more, in callbacks.
  try {
    return statSync(filePath, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}

type Extracted = Either.Either<ExtractedDocument, DocumentUnreadable>

const make = (sizes: OffThreadSizes, workerEntry: URL) =>
  Effect.gen(function* () {
    const extractor = yield* Extractor
    const pool = yield* makeWorkerPool<ExtractionRequest, ReadonlyArray<ExtractionAnswer>>(workerEntry, os.availableParallelism())

    const fromAnswer = (answer: ExtractionAnswer): Extracted =>
      "document" in answer ? Either.right(answer.document) : Either.left(new DocumentUnreadable(answer.unreadable))

    const onWorker = (paths: ReadonlyArray<string>, options: ExtractOptions): Effect.Effect<ReadonlyArray<Extracted>> =>
      pool.run({ paths, options }).pipe(
        Effect.map((answers) => answers.map(fromAnswer)),
        Effect.catchTag("WorkerFailed", (error) =>
          paths.length === 1
            ? // A thread that died on a file (out of memory on a hostile one) leaves that file unread, not the task failed.
              Effect.succeed([Either.left(new DocumentUnreadable({ path: path.resolve(paths[0]!), reason: error.message }))])
            : // Each file of the claim again alone, so that only the one that killed the thread is lost.
              Effect.map(
                Effect.forEach(paths, (filePath) => onWorker([filePath], options)),
                (answers) => answers.flat()
              )
        )
      )

    const onThisThread = (paths: ReadonlyArray<string>, options: ExtractOptions) =>
      Effect.forEach(paths, (filePath) => Effect.zipLeft(Effect.either(extractor.extract(filePath, options)), eventLoopTurn))

    const extractAll = Effect.fn("ExtractionPool.extractAll")(function* (paths: ReadonlyArray<string>, options: ExtractOptions) {
      const fileSizes = paths.map(sizeOf)
      const claimBytes = fileSizes.reduce((sum, size) => sum + size, 0)
      const slowFile = paths.some(
        (filePath, i) => slowExtensions.has(path.extname(filePath).toLowerCase()) && fileSizes[i]! >= sizes.slowTypeBytes
      )
      return yield* claimBytes >= sizes.claimBytes || slowFile ? onWorker(paths, options) : onThisThread(paths, options)
    })

    return { extractAll }
  })

/**
 * Extraction for index tasks, off the event loop where it would hold it: a claim of files goes in one message to a
 * pool of worker threads (one a core, started on first use) when its files add up to more than a few pages or hold
 * a slow type, so that a run of small files never starts one; smaller claims stay on this thread. Same answers
 * either way, in the order of the paths.
 */
export class ExtractionPool extends Context.Tag("quarry/ExtractionPool")<
  ExtractionPool,
  {
    readonly extractAll: (
      paths: ReadonlyArray<string>,
      options: ExtractOptions
    ) => Effect.Effect<ReadonlyArray<Either.Either<ExtractedDocument, DocumentUnreadable>>>
  }
>() {
  /** `workerEntry` is the worker threads' module: ExtractionWorker.ts, or a stand-in that tests what a dying thread does. */
  static readonly layer = (sizes: OffThreadSizes = defaultSizes, workerEntry = new URL("./ExtractionWorker.ts", import.meta.url)) =>
    Layer.scoped(ExtractionPool, make(sizes, workerEntry))
  static readonly Default = ExtractionPool.layer()
}
