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
 * The thread's current stretch of sliced work: when it began, and when a sliced loop last gave a turn. Shared by every
 * loop on this thread, so that loops whose turns follow one another directly (several searches highlighting at
 * once) share one slice rather than taking one each in the same pass of the event loop: with a slice each, six
 * searches held requests for six slices in a row (`/api/status` p99 49 to 90 ms under 200 concurrent searches).
 */
let stretchStart = 0
let lastTurnAt = Number.NEGATIVE_INFINITY
/** A pause at least this long since the last sliced turn means other work ran: a new stretch begins. */
const otherWorkMillis = 1

const beginStretchUnlessFollowing = () => {
  const now = performance.now()
  if (now - lastTurnAt >= otherWorkMillis) stretchStart = now
}

/**
 * A turn of the event loop once `sliceMillis` of sliced work have passed in the thread's current stretch, for a loop of
 * short synchronous steps. A turn after every step let every other task on this thread run between two steps, so a
 * loop of 25 steps waited for 25 of them (a search's highlights took up to 600 ms while an index task extracted files);
 * a slice per loop let several loops hold the thread for a slice each. A loop that resumes right after another's turn
 * continues that stretch, and gives its turn after one step once the slice is used.
 */
export const makeSlicedTurn = (sliceMillis: number) => {
  beginStretchUnlessFollowing()
  return Effect.suspend(() => {
    const now = performance.now()
    if (now - stretchStart < sliceMillis) return Effect.void
    lastTurnAt = now
    return Effect.zipLeft(eventLoopTurn, Effect.sync(beginStretchUnlessFollowing))
  })
}
