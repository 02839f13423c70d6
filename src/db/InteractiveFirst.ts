import { Effect } from "effect"

/**
 * Who goes first on the embedded database's one session: a person waiting for a search, before an index task's next
 * write. PGlite runs one statement at a time for everyone and its connection queue is first come, first served, so
 * while a corpus indexed a one-word search waited behind the writes of both index workers, seconds at a time.
 * Searches mark themselves while they run; an index task waits for none to be running before each write, but
 * never longer than `maxYieldMillis`, so that a steady stream of searches slows indexing without stopping it.
 */
const maxYieldMillis = 2_000

export class InteractiveFirst extends Effect.Service<InteractiveFirst>()("quarry/InteractiveFirst", {
  effect: Effect.gen(function* () {
    const noneRunning = yield* Effect.makeLatch(true)
    let running = 0

    /** `effect`, during which background writes hold back. */
    const interactive = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.flatMap(
          Effect.sync(() => ++running),
          () => noneRunning.close
        ),
        () => effect,
        () => Effect.suspend(() => (--running === 0 ? noneRunning.open : Effect.void))
      )

    /** Waits until no interactive work runs, or `maxYieldMillis` at most. */
    const backgroundTurn = noneRunning.await.pipe(
      Effect.timeoutTo({ duration: maxYieldMillis, onSuccess: () => undefined, onTimeout: () => undefined })
    )

    return { interactive, backgroundTurn }
  })
}) {}
