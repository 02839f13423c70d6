/**
 * An extraction worker thread (see ExtractionPool.ts): it extracts the files it is sent, one after the other, with
 * its own Extractor, so that parsers never hold the server's event loop.
 */
import { parentPort } from "node:worker_threads"
import { Effect, Either, ManagedRuntime } from "effect"
import { serveRequests } from "../workers/WorkerPool.ts"
import type { ExtractedDocument, ExtractOptions } from "./Document.ts"
import { Extractor } from "./Extractor.ts"

/** Files extracted with the same options: a claim's worth in one message, whose round trip costs a file's worth. */
export interface ExtractionRequest {
  readonly paths: ReadonlyArray<string>
  readonly options: ExtractOptions
}

/** A file's document tree, or why it could not be read at all (the only failure of Extractor.extract). */
export type ExtractionAnswer =
  { readonly document: ExtractedDocument } | { readonly unreadable: { readonly path: string; readonly reason: string } }

const runtime = ManagedRuntime.make(Extractor.Default)

serveRequests<ExtractionRequest, ReadonlyArray<ExtractionAnswer>>(parentPort, ({ paths, options }) =>
  runtime.runPromise(
    Effect.flatMap(Extractor, (extractor) =>
      Effect.forEach(paths, (path) =>
        Effect.either(extractor.extract(path, options)).pipe(
          Effect.map(
            Either.match({
              onLeft: ({ path, reason }): ExtractionAnswer => ({ unreadable: { path, reason } }),
              onRight: (document): ExtractionAnswer => ({ document })
            })
          )
        )
      )
    )
  )
)
