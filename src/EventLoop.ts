import { Effect } from "effect"

/**
 * A turn of the event loop: waiting I/O callbacks and due timers run before the fiber goes on. Effect resumes fibers
 * through microtasks, which run before any of them, so a fiber doing synchronous work step after step holds the
 * event loop, other requests and its own deadline's timer alike, until it ends.
 */
export const eventLoopTurn = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

/**
 * A turn of the event loop once `sliceMillis` of work have passed since the last one, for a loop of short synchronous
 * steps: a turn after every step lets every other task on this thread run between two steps, so that a loop of 25
 * steps waited for 25 of them (a search's highlights took up to 600 ms while an index task extracted files).
 */
export const makeSlicedTurn = (sliceMillis: number) => {
  let sliceStart = performance.now()
  return Effect.suspend(() => {
    if (performance.now() - sliceStart < sliceMillis) return Effect.void
    return Effect.zipLeft(
      eventLoopTurn,
      Effect.sync(() => (sliceStart = performance.now()))
    )
  })
}
