import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeSlicedTurn } from "../src/EventLoop.ts"

/** Busy work on this thread for `millis`, as a synchronous highlight is. */
const busy = (millis: number) =>
  Effect.sync(() => {
    const until = performance.now() + millis
    while (performance.now() < until);
  })

/** A pass of the event loop's timers, so that no sliced turn of an earlier test is still pending. */
const timersPassed = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 1)))

/**
 * The step after which an immediate callback queued before the loop had run (-1 when it never ran), and the
 * milliseconds since the loop began at the end of each step.
 */
const stepWhenOthersRan = (steps: number, stepMillis: number, sliceMillis: number) =>
  Effect.gen(function* () {
    yield* timersPassed
    let othersRan = false
    const other = setImmediate(() => (othersRan = true))
    let ranAfter = -1
    const turnWhenSliceUsed = makeSlicedTurn(sliceMillis)
    const start = performance.now()
    const elapsed = [0]
    for (let step = 1; step <= steps; step++) {
      yield* busy(stepMillis)
      elapsed.push(performance.now() - start)
      yield* turnWhenSliceUsed
      if (othersRan && ranAfter === -1) ranAfter = step
    }
    clearImmediate(other)
    return { ranAfter, elapsed }
  })

describe("makeSlicedTurn", () => {
  it.effect("short steps run back to back while their slice lasts", () =>
    Effect.gen(function* () {
      expect((yield* stepWhenOthersRan(50, 0, 1_000)).ranAfter).toBe(-1)
    })
  )

  it.effect("once the slice is used, the event loop gets a turn between two steps", () =>
    Effect.gen(function* () {
      const { ranAfter, elapsed } = yield* stepWhenOthersRan(20, 2, 10)
      // Ten milliseconds of 2 ms steps: the turn comes after the first step that ends the slice (around the fifth, or
      // sooner when a loaded machine stops this thread during a step), not before it, and well before the last.
      expect(ranAfter).toBeGreaterThanOrEqual(1)
      expect(ranAfter).toBeLessThan(20)
      expect(elapsed[ranAfter]).toBeGreaterThanOrEqual(10)
      expect(elapsed[ranAfter - 1]).toBeLessThan(10)
    })
  )

  it.live("loops running at once share one slice: a pass of the event loop runs one slice, not one per loop", () =>
    Effect.gen(function* () {
      // Steps counted between two passes of the event loop (a chain of timers): a count, not a duration, so that a
      // loaded machine that stops this thread for a while cannot make the test fail.
      let steps = 0
      let mostStepsInAPass = 0
      let timer: NodeJS.Timeout | undefined
      const tick = () => {
        mostStepsInAPass = Math.max(mostStepsInAPass, steps)
        steps = 0
        timer = setTimeout(tick, 0)
      }
      timer = setTimeout(tick, 0)
      const loop = Effect.gen(function* () {
        const turnWhenSliceUsed = makeSlicedTurn(20)
        for (let step = 0; step < 100; step++) {
          yield* busy(1)
          steps++
          yield* turnWhenSliceUsed
        }
      })
      yield* Effect.all([loop, loop, loop, loop, loop, loop], { concurrency: "unbounded", discard: true })
      clearTimeout(timer)
      // One slice (about 20 steps of 1 ms) and a step of each other loop; a slice each would be about 120 steps.
      expect(mostStepsInAPass).toBeGreaterThanOrEqual(5)
      expect(mostStepsInAPass).toBeLessThan(60)
    })
  )
})
