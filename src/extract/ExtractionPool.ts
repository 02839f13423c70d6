import { stat } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { makeWorkerPool } from "../workers/WorkerPool.ts"
import type { ExtractOptions } from "./Document.ts"
import { DocumentUnreadable } from "./ExtractErrors.ts"
import type { ExtractionAnswer, ExtractionRequest } from "./ExtractionWorker.ts"
import { Extractor } from "./Extractor.ts"

/**
 * Files at least this large are extracted on a worker thread. Below it a file costs the event loop a few
 * milliseconds at most (a 20 KB HTML page about 1.5 ms), less than handing it to a thread and its text back.
 */
const offThreadBytes = 256 * 1024
/** Types whose parsers hold the thread long whatever the size (PDF and office parsers, archives and their members). */
const slowExtensions = new Set([".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".zip", ".tar", ".gz", ".tgz", ".mbox"])

/**
 * Extraction for index tasks, off the event loop where it would hold it: large files and slow types go to a pool of
 * worker threads (one a core, started on first use), small ones stay on this thread. Same answers either way.
 */
export class ExtractionPool extends Effect.Service<ExtractionPool>()("quarry/ExtractionPool", {
  scoped: Effect.gen(function* () {
    const extractor = yield* Extractor
    const pool = yield* makeWorkerPool<ExtractionRequest, ExtractionAnswer>(new URL("./ExtractionWorker.ts", import.meta.url), os.availableParallelism())

    const onWorker = (filePath: string, options: ExtractOptions) =>
      pool.run({ path: filePath, options }).pipe(
        // A thread that died on a file (out of memory on a hostile one) leaves that file unread, not the task failed.
        Effect.mapError((error) => new DocumentUnreadable({ path: path.resolve(filePath), reason: error.message })),
        Effect.flatMap((answer) => ("document" in answer ? Effect.succeed(answer.document) : Effect.fail(new DocumentUnreadable(answer.unreadable))))
      )

    const extract = Effect.fn("ExtractionPool.extract")(function* (filePath: string, options: ExtractOptions) {
      const size = yield* Effect.promise(() => stat(filePath).then((stats) => stats.size, () => 0))
      const slow = size >= offThreadBytes || slowExtensions.has(path.extname(filePath).toLowerCase())
      return yield* slow ? onWorker(filePath, options) : extractor.extract(filePath, options)
    })

    return { extract }
  })
}) {}
