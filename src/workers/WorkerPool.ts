import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { Effect, Schema, type Scope } from "effect"

/**
 * A worker thread running a TypeScript entry. Its bootstrap loads the entry through tsx's `tsImport`, the one way
 * that works in a worker thread both under `node --import tsx` and under vitest (loader hooks given by `--import`
 * do not reach workers on Node 20).
 */
export const typeScriptWorker = (entry: URL, workerData?: unknown) => {
  // require() resolves the CommonJS build of the API; its ES module build sits beside it.
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs")
  ).href
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`
  return new Worker(bootstrap, { eval: true, execArgv: [], workerData })
}

/** A worker thread that died, or could not answer, while it worked on a request. */
export class WorkerFailed extends Schema.TaggedError<WorkerFailed>()("WorkerFailed", { reason: Schema.String }) {
  override get message() {
    return `a worker thread failed: ${this.reason}`
  }
}

interface Envelope<A> {
  readonly id: number
  readonly request: A
}

type Reply<B> = { readonly id: number; readonly answer: B } | { readonly id: number; readonly failure: string }

/** The worker side: answers each request with `handle`, a thrown error becoming that request's failure. */
export const serveRequests = <A, B>(port: import("node:worker_threads").MessagePort | null, handle: (request: A) => Promise<B>) =>
  port?.on("message", ({ id, request }: Envelope<A>) => {
    handle(request).then(
      (answer) => port.postMessage({ id, answer } satisfies Reply<B>),
      (error: unknown) => port.postMessage({ id, failure: error instanceof Error ? error.message : String(error) } satisfies Reply<B>)
    )
  })

export interface WorkerPool<A, B> {
  /** The answer of the least busy worker (started on first use). Interrupting the caller leaves the worker at work. */
  readonly run: (request: A) => Effect.Effect<B, WorkerFailed>
}

/**
 * `size` worker threads of `entry`, started on first use and ended with the scope. A worker that exits is replaced
 * on the next request, and the requests it held fail with WorkerFailed. Idle workers do not keep the process alive.
 */
export const makeWorkerPool = <A, B>(entry: URL, size: number): Effect.Effect<WorkerPool<A, B>, never, Scope.Scope> =>
  Effect.gen(function* () {
    interface Slot {
      readonly worker: Worker
      readonly pending: Map<number, (reply: Reply<B>) => void>
    }
    const slots: Array<Slot> = []
    let nextId = 0

    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all(slots.map((slot) => slot.worker.terminate()))))

    const start = (): Slot => {
      const slot: Slot = { worker: typeScriptWorker(entry), pending: new Map() }
      slot.worker.unref()
      slot.worker.on("message", (reply: Reply<B>) => slot.pending.get(reply.id)?.(reply))
      const failAll = (reason: string) => {
        slots.splice(slots.indexOf(slot), 1)
        for (const [id, resume] of slot.pending) resume({ id, failure: reason })
      }
      slot.worker.once("error", (error) => failAll(error.message))
      slot.worker.once("exit", (code) => slots.includes(slot) && failAll(`the worker thread exited with code ${code}`))
      slots.push(slot)
      return slot
    }

    // The worker with the fewest requests in hand; a new one while fewer than `size` run and none is idle.
    const leastBusy = () => {
      const least = slots.reduce<Slot | undefined>((a, b) => (a === undefined || b.pending.size < a.pending.size ? b : a), undefined)
      return least !== undefined && (least.pending.size === 0 || slots.length >= size) ? least : start()
    }

    const run = (request: A) =>
      Effect.async<B, WorkerFailed>((resume) => {
        const slot = leastBusy()
        const id = nextId++
        slot.pending.set(id, (reply) => {
          slot.pending.delete(id)
          // A busy worker keeps the process alive (its answer is awaited); an idle one does not.
          if (slot.pending.size === 0) slot.worker.unref()
          resume("answer" in reply ? Effect.succeed(reply.answer) : Effect.fail(new WorkerFailed({ reason: reply.failure })))
        })
        slot.worker.ref()
        slot.worker.postMessage({ id, request } satisfies Envelope<A>)
      })

    return { run }
  })
