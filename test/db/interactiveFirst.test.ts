import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { InteractiveFirst } from "../../src/db/InteractiveFirst.ts"

describe("InteractiveFirst: searches before index writes on the embedded database", () => {
  it.effect("a background write starts at once when no search runs, and waits for the ones running", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      expect(yield* turns.background(Effect.succeed("written"))).toBe("written")
      const release = yield* Deferred.make<void>()
      const search = yield* Effect.fork(turns.interactive(Deferred.await(release)))
      yield* Effect.yieldNow()
      const write = yield* Effect.fork(turns.background(Effect.succeed("written")))
      yield* TestClock.adjust("500 millis")
      expect(yield* Fiber.poll(write)).toMatchObject({ _tag: "None" })
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(search)
      expect(yield* Fiber.join(write)).toBe("written")
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )

  it.effect("a write waits two seconds at most, so a stream of searches slows indexing without stopping it", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      const search = yield* Effect.fork(turns.interactive(Effect.never))
      yield* Effect.yieldNow()
      const write = yield* Effect.fork(turns.background(Effect.void))
      yield* TestClock.adjust("1999 millis")
      expect(yield* Fiber.poll(write)).toMatchObject({ _tag: "None" })
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(write)
      yield* Fiber.interrupt(search)
      // The interrupted search counts no more: the next write starts at once.
      yield* turns
        .background(Effect.void)
        .pipe(Effect.timeoutFail({ duration: "1 millis", onTimeout: () => "still waiting" }), Effect.fork, Effect.flatMap(Fiber.join))
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )

  it.effect("writes go one at a time, and a search that comes during one goes before the next", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      const order: Array<string> = []
      const firstWriteEnds = yield* Deferred.make<void>()
      const first = yield* Effect.fork(
        turns.background(
          Effect.zipRight(
            Deferred.await(firstWriteEnds),
            Effect.sync(() => order.push("write 1"))
          )
        )
      )
      yield* Effect.yieldNow()
      // The second worker's write asks while the first is running: it must not start before the first ends.
      const second = yield* Effect.fork(turns.background(Effect.sync(() => order.push("write 2"))))
      yield* Effect.yieldNow()
      expect(order).toEqual([])
      // A search arrives during the first write and runs once it ends, before the second write.
      const searchEnds = yield* Deferred.make<void>()
      const search = yield* Effect.fork(
        turns.interactive(
          Effect.zipRight(
            Deferred.await(searchEnds),
            Effect.sync(() => order.push("search"))
          )
        )
      )
      yield* Effect.yieldNow()
      yield* Deferred.succeed(firstWriteEnds, undefined)
      yield* Fiber.join(first)
      yield* TestClock.adjust("100 millis")
      expect(order).toEqual(["write 1"])
      yield* Deferred.succeed(searchEnds, undefined)
      yield* Fiber.join(search)
      yield* Fiber.join(second)
      expect(order).toEqual(["write 1", "search", "write 2"])
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )

  it.effect("people count as searching while a search runs and for five seconds after it, when index writes stay short", () =>
    Effect.gen(function* () {
      const turns = yield* InteractiveFirst
      expect(yield* turns.searching).toBe(false)
      const release = yield* Deferred.make<void>()
      const search = yield* Effect.fork(turns.interactive(Deferred.await(release)))
      yield* Effect.yieldNow()
      yield* TestClock.adjust("1 minute")
      expect(yield* turns.searching).toBe(true)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(search)
      yield* TestClock.adjust("4999 millis")
      expect(yield* turns.searching).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect(yield* turns.searching).toBe(false)
    }).pipe(Effect.provide(InteractiveFirst.Default))
  )
})
