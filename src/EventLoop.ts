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
 * The thread's current stretch of sliced work, shared by every sliced loop on this thread, so that loops whose turns
 * follow one another in the same pass of the event loop (several searches highlighting at once: their turns are
 * immediates, which run back to back) share one slice rather than taking one each: with a slice each, six searches
 * held requests for six slices in a row (`/api/status` p99 49 to 90 ms under 200 concurrent searches).
 */
let stretchStart = 0
/**
 * A zero-delay timer set at a sliced turn, pending until the event loop runs its timers (and so its I/O) again: while
 * it is pending the loop is still in the same pass, once it has fired a new stretch begins.
 */
let passMarker: NodeJS.Timeout | undefined

const awaitNextPass = () => {
  passMarker ??= setTimeout(() => (passMarker = undefined), 0).unref()
}

const beginStretchOnNewPass = () => {
  if (passMarker === undefined) stretchStart = performance.now()
}

/**
 * A turn of the event loop once `sliceMillis` of sliced work have passed in the thread's current stretch, for a loop of
 * short synchronous steps. A turn after every step let every other task on this thread run between two steps, so a
 * loop of 25 steps waited for 25 of them (a search's highlights took up to 600 ms while an index task extracted files).
 * A loop that resumes in the same pass as another's turn continues that stretch, and gives its turn after one step.
 */
export const makeSlicedTurn = (sliceMillis: number) => {
  beginStretchOnNewPass()
  return Effect.suspend(() => {
    if (performance.now() - stretchStart < sliceMillis) return Effect.void
    awaitNextPass()
    return Effect.zipLeft(eventLoopTurn, Effect.sync(beginStretchOnNewPass))
  })
}
