/**
 * `/api/status` asked every 20 ms from a thread of its own, as a monitoring client would from another process. Sampled
 * on the benchmark's main thread, the latencies also held the time that thread spent on its own load (200 searches'
 * responses received and parsed at once), which is not the server's.
 */
import { Worker } from "node:worker_threads"
import { Effect } from "effect"

// Plain JavaScript, so that the thread needs no TypeScript loader.
const samplerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const latencies = []
let failures = 0
let stopped = false
parentPort.once("message", () => (stopped = true))
const sample = async () => {
  while (!stopped) {
    const begin = performance.now()
    try {
      await (await fetch(workerData.url + "/api/status")).arrayBuffer()
      latencies.push(performance.now() - begin)
    } catch {
      failures++
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  parentPort.postMessage({ latencies, failures })
}
sample()
`

export interface StatusSamples {
  /** Milliseconds, in the order they were measured. */
  readonly latencies: ReadonlyArray<number>
  /** Requests that got no answer (a refused or dropped connection): a failed fetch would otherwise end the thread. */
  readonly failures: number
}

/** Starts sampling; `stop` ends it and answers what was measured. */
export const sampleStatusApart = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Worker(samplerSource, { eval: true, workerData: { url } })),
    (worker) => Effect.promise(() => worker.terminate())
  ).pipe(
    Effect.map((worker) => ({
      stop: Effect.async<StatusSamples>((resume) => {
        worker.once("message", (samples: StatusSamples) => resume(Effect.succeed(samples)))
        worker.postMessage("stop")
      })
    }))
  )
