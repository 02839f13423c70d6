import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { InteractiveFirst } from "../../src/db/InteractiveFirst.ts"

describe("InteractiveFirst: searches before index writes on the embedded database", () => {
  it.effect("a background turn is immediate when no search runs, and waits for the ones running", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      yield* turns.backgroundTurn
      const release = yield* Deferred.make<void>()
      const search = yield* Effect.fork(turns.interactive(Deferred.await(release)))
      yield* Effect.yieldNow()
      const write = yield* Effect.fork(turns.backgroundTurn)
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.poll(write)).toMatchObject({ _tag: "None" })
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(search)
      yield* Fiber.join(write)
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )

  it.effect("a write waits two seconds at most, so a stream of searches slows indexing without stopping it", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      const search = yield* Effect.fork(turns.interactive(Effect.never))
      yield* Effect.yieldNow()
      const write = yield* Effect.fork(turns.backgroundTurn)
      yield* TestClock.adjust("1999 millis")
      expect(yield* Fiber.poll(write)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(write)
      yield* Fiber.interrupt(search)
      // The interrupted search counts no more: the next turn is immediate.
      yield* turns.backgroundTurn.pipe(
        Effect.timeoutFail({ duration: "1 millis", onTimeout: () => "still waiting" }),
        Effect.fork,
        Effect.flatMap(Fiber.join)
      )
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )
})
