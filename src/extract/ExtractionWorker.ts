/**
 * An extraction worker thread (see ExtractionPool.ts): it extracts the files it is sent with its own Extractor, so
 * that a large PDF or office file, whose parsers hold the thread for seconds, never holds the server's event loop.
 */
import { parentPort } from "node:worker_threads"
import { Effect, Either, ManagedRuntime } from "effect"
import { serveRequests } from "../workers/WorkerPool.ts"
import type { ExtractedDocument, ExtractOptions } from "./Document.ts"
import { Extractor } from "./Extractor.ts"

export interface ExtractionRequest {
  readonly path: string
  readonly options: ExtractOptions
}

/** The document tree, or why the file could not be read at all (the only failure of Extractor.extract). */
export type ExtractionAnswer =
  { readonly document: ExtractedDocument } | { readonly unreadable: { readonly path: string; readonly reason: string } }

const runtime = ManagedRuntime.make(Extractor.Default)

serveRequests<ExtractionRequest, ExtractionAnswer>(parentPort, ({ path, options }) =>
  runtime.runPromise(
    Effect.flatMap(Extractor, (extractor) => Effect.either(extractor.extract(path, options))).pipe(
      Effect.map(Either.match({ onLeft: ({ path, reason }) => ({ unreadable: { path, reason } }), onRight: (document) => ({ document }) }))
    )
  )
)
