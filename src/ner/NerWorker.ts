/**
 * A named-entity worker thread (see NerPool.ts): it runs pipelines over the documents it is sent, so that their
 * synchronous work (compromise reads about 25 KB a second) never holds the main thread's event loop.
 */
import { parentPort } from "node:worker_threads"
import { annotateDocument } from "./Annotate.ts"
import { compromisePipeline } from "./CompromisePipeline.ts"
import { emailPipeline } from "./EmailPipeline.ts"
import type { Annotation, DocumentFields } from "./Pipeline.ts"

// The pipelines of Pipelines.ts, imported one by one: that module's Effect would more than double the thread's start.
const pipelines = [emailPipeline, compromisePipeline]

export interface NerWorkerRequest {
  readonly id: number
  readonly pipeline: string
  readonly documents: ReadonlyArray<DocumentFields>
}

export type NerWorkerReply =
  | { readonly id: number; readonly annotations: ReadonlyArray<ReadonlyArray<Annotation>> }
  | { readonly id: number; readonly failure: string }

const reply = (request: NerWorkerRequest): NerWorkerReply => {
  const pipeline = pipelines.find((candidate) => candidate.name === request.pipeline)
  if (pipeline === undefined) return { id: request.id, failure: `unknown pipeline ${request.pipeline}` }
  try {
    return { id: request.id, annotations: request.documents.map((document) => annotateDocument(pipeline, document)) }
  } catch (error) {
    return { id: request.id, failure: error instanceof Error ? error.message : String(error) }
  }
}

parentPort?.on("message", (request: NerWorkerRequest) => parentPort?.postMessage(reply(request)))
