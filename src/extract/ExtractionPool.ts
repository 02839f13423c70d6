import { statSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Layer } from "effect"
import { eventLoopTurn } from "../EventLoop.ts"
import { makeWorkerPool } from "../workers/WorkerPool.ts"
import type { ExtractedDocument, ExtractOptions } from "./Document.ts"
import { DocumentUnreadable } from "./ExtractErrors.ts"
import type { ExtractionAnswer, ExtractionRequest } from "./ExtractionWorker.ts"
import { Extractor } from "./Extractor.ts"

/** From which size a file is extracted on a worker thread. */
export interface OffThreadSizes {
  /** Any file: below it a file costs the event loop a few milliseconds at most (a 20 KB HTML page about 1.5 ms). */
  readonly anyBytes: number
  /** PDF, office files and archives, whose parsers cost far more a byte (a small PDF still about 3 ms). */
  readonly slowTypeBytes: number
}

const defaultSizes: OffThreadSizes = { anyBytes: 256 * 1024, slowTypeBytes: 64 * 1024 }

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

const make = (sizes: OffThreadSizes) =>
  Effect.gen(function* () {
    const extractor = yield* Extractor
    const pool = yield* makeWorkerPool<ExtractionRequest, ExtractionAnswer>(
      new URL("./ExtractionWorker.ts", import.meta.url),
      os.availableParallelism()
    )

    const onWorker = (filePath: string, options: ExtractOptions) =>
      pool.run({ path: filePath, options }).pipe(
        // A thread that died on a file (out of memory on a hostile one) leaves that file unread, not the task failed.
        Effect.mapError((error) => new DocumentUnreadable({ path: path.resolve(filePath), reason: error.message })),
        Effect.flatMap((answer) =>
          "document" in answer ? Effect.succeed(answer.document) : Effect.fail(new DocumentUnreadable(answer.unreadable))
        )
      )

    const extract = Effect.fn("ExtractionPool.extract")(function* (filePath: string, options: ExtractOptions) {
      // A synchronous stat costs microseconds of this thread; a promised one about ten times more, in callbacks.
      const size = yield* Effect.try(() => statSync(filePath, { throwIfNoEntry: false })?.size ?? 0).pipe(Effect.orElseSucceed(() => 0))
      const threshold = slowExtensions.has(path.extname(filePath).toLowerCase()) ? sizes.slowTypeBytes : sizes.anyBytes
      if (size >= threshold) return yield* onWorker(filePath, options)
      // A turn of the event loop after each file: without it a claim's small files (and the promise chains of their
      // parsers) were extracted back to back, and the server answered nothing for up to 1.7 s while an index task ran.
      return yield* Effect.zipLeft(extractor.extract(filePath, options), eventLoopTurn)
    })

    return { extract }
  })

/**
 * Extraction for index tasks, off the event loop where it would hold it: large files, and slow types from a smaller
 * size, go to a pool of worker threads (one a core, started on first use, so a run of small files never starts one);
 * the others stay on this thread. Same answers either way.
 */
export class ExtractionPool extends Context.Tag("quarry/ExtractionPool")<
  ExtractionPool,
  { readonly extract: (filePath: string, options: ExtractOptions) => Effect.Effect<ExtractedDocument, DocumentUnreadable> }
>() {
  static readonly layer = (sizes: OffThreadSizes = defaultSizes) => Layer.scoped(ExtractionPool, make(sizes))
  static readonly Default = ExtractionPool.layer()
}
