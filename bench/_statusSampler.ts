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
let stopped = false
parentPort.once("message", () => (stopped = true))
const sample = async () => {
  while (!stopped) {
    const begin = performance.now()
    await (await fetch(workerData.url + "/api/status")).arrayBuffer()
    latencies.push(performance.now() - begin)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  parentPort.postMessage(latencies)
}
sample()
`

/** Starts sampling; `stop` ends it and answers the latencies in milliseconds, in the order they were measured. */
export const sampleStatusApart = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Worker(samplerSource, { eval: true, workerData: { url } })),
    (worker) => Effect.promise(() => worker.terminate())
  ).pipe(
    Effect.map((worker) => ({
      stop: Effect.async<ReadonlyArray<number>>((resume) => {
        worker.once("message", (latencies: ReadonlyArray<number>) => resume(Effect.succeed(latencies)))
        worker.postMessage("stop")
      })
    }))
  )
