import * as os from "node:os"
import type { Worker } from "node:worker_threads"
import { Array as Arr, Effect, Exit, Schema } from "effect"
import { typeScriptWorker } from "../workers/WorkerPool.ts"
import type { NerWorkerReply, NerWorkerRequest } from "./NerWorker.ts"
import { annotateDocument } from "./Annotate.ts"
import type { Annotation, DocumentFields, NerPipeline } from "./Pipeline.ts"

/** A worker thread that died or threw while it read documents. */
export class NerWorkerFailed extends Schema.TaggedError<NerWorkerFailed>()("NerWorkerFailed", { reason: Schema.String }) {
  override get message() {
    return `named-entity analysis failed: ${this.reason}`
  }
}

/** One worker a core: the pipelines are CPU work, and the main thread mostly waits on the database meanwhile. */
const poolSize = os.availableParallelism()

/**
 * Named-entity pipelines on worker threads, so that a long analysis never holds the event loop (1 MB of English
 * text took 105 s of it). Workers start on first use (loading a pipeline takes about a second) and are kept; one
 * that fails or whose caller is interrupted is ended, since it may still be busy, and another starts when needed.
 */
export class NerPool extends Effect.Service<NerPool>()("quarry/NerPool", {
  scoped: Effect.gen(function* () {
    const idle: Array<Worker> = []
    const live = new Set<Worker>()
    const permits = yield* Effect.makeSemaphore(poolSize)
    let nextId = 0

    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([...live].map((worker) => worker.terminate()))))

    const spawn = () => {
      const worker = typeScriptWorker(new URL("./NerWorker.ts", import.meta.url))
      live.add(worker)
      worker.once("exit", () => live.delete(worker))
      return worker
    }

    const ask = (worker: Worker, request: NerWorkerRequest) =>
      Effect.async<ReadonlyArray<ReadonlyArray<Annotation>>, NerWorkerFailed>((resume) => {
        const stopListening = () => {
          worker.off("message", onMessage)
          worker.off("error", onError)
          worker.off("exit", onExit)
        }
        const onMessage = (reply: NerWorkerReply) => {
          if (reply.id !== request.id) return
          stopListening()
          resume("failure" in reply ? Effect.fail(new NerWorkerFailed({ reason: reply.failure })) : Effect.succeed(reply.annotations))
        }
        const onError = (error: Error) => {
          stopListening()
          resume(Effect.fail(new NerWorkerFailed({ reason: error.message })))
        }
        const onExit = (code: number) => {
          stopListening()
          resume(Effect.fail(new NerWorkerFailed({ reason: `the worker thread exited with code ${code}` })))
        }
        worker.on("message", onMessage)
        worker.on("error", onError)
        worker.on("exit", onExit)
        worker.postMessage(request)
        return Effect.sync(stopListening)
      })

    /** The annotations of each document, on one worker. */
    const onOneWorker = (pipeline: string, documents: ReadonlyArray<DocumentFields>) =>
      permits.withPermits(1)(
        Effect.acquireUseRelease(
          // A busy worker keeps the process alive; an idle one does not.
          Effect.sync(() => {
            const worker = idle.pop() ?? spawn()
            worker.ref()
            return worker
          }),
          (worker) => ask(worker, { id: nextId++, pipeline, documents }),
          (worker, exit) =>
            Effect.sync(() => {
              if (Exit.isSuccess(exit)) {
                worker.unref()
                idle.push(worker)
              } else void worker.terminate()
            })
        )
      )

    /**
     * The annotations of each document, in order: on the workers, which share the documents, for a pipeline that runs
     * there, else in this thread.
     */
    const annotateDocuments = (
      pipeline: NerPipeline,
      documents: ReadonlyArray<DocumentFields>
    ): Effect.Effect<ReadonlyArray<ReadonlyArray<Annotation>>, NerWorkerFailed> => {
      if (!pipeline.onWorkers) return Effect.sync(() => documents.map((document) => annotateDocument(pipeline, document)))
      if (documents.length === 0) return Effect.succeed([])
      const parts = Arr.chunksOf(documents, Math.ceil(documents.length / poolSize))
      return Effect.map(
        Effect.forEach(parts, (part) => onOneWorker(pipeline.name, part), { concurrency: poolSize }),
        (done) => done.flat()
      )
    }

    return { annotateDocuments }
  })
}) {}
