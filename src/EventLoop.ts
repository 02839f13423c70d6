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
