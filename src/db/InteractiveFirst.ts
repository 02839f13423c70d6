import { Clock, Effect } from "effect"

/**
 * Who goes first on the embedded database's one session: a person waiting for a search, before an index task's next
 * write. PGlite runs one statement at a time for everyone and its connection queue is first come, first served, so
 * while a corpus indexed a one-word search waited behind the writes of both index workers, seconds at a time.
 * Searches mark themselves while they run. Background writes go one at a time, and each, once it is next, waits for
 * no search to be running before it asks for the connection, but never longer than `maxYieldMillis`, so that a
 * steady stream of searches slows indexing without stopping it. One at a time matters: a second worker's write that
 * had checked for searches before one arrived sat in the connection's queue ahead of it, and a search waited for two
 * 512 KB transactions, not one.
 */
const maxYieldMillis = 2_000
/** How long after a search ends people still count as searching (a person reads a page of hits, then searches again). */
const searchingLingerMillis = 5_000

export class InteractiveFirst extends Effect.Service<InteractiveFirst>()("quarry/InteractiveFirst", {
  effect: Effect.gen(function* () {
    const noneRunning = yield* Effect.makeLatch(true)
    const oneWriteAtATime = yield* Effect.makeSemaphore(1)
    let running = 0
    let lastEnded = Number.NEGATIVE_INFINITY

    /** `effect`, during which background writes hold back. */
    const interactive = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.flatMap(
          Effect.sync(() => ++running),
          () => noneRunning.close
        ),
        () => effect,
        () =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            lastEnded = now
            return --running === 0 ? noneRunning.open : Effect.void
          })
      )

    /** Whether a search runs or ended moments ago: background work then keeps its steps short. */
    const searching = Effect.map(Clock.currentTimeMillis, (now) => running > 0 || now - lastEnded < searchingLingerMillis)

    /** Waits until no interactive work runs, or `maxYieldMillis` at most. */
    const turn = noneRunning.await.pipe(
      Effect.timeoutTo({ duration: maxYieldMillis, onSuccess: () => undefined, onTimeout: () => undefined })
    )

    /** A background write: after the one before it, once no search runs (or `maxYieldMillis` have passed). */
    const background = <A, E, R>(write: Effect.Effect<A, E, R>) => oneWriteAtATime.withPermits(1)(Effect.zipRight(turn, write))

    return { interactive, background, searching }
  })
}) {}
