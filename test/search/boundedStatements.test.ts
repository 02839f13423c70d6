import * as os from "node:os"
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { eventually } from "../engine/helpers.ts"
import { postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { corpusLayer, send, word } from "./boundedCorpus.ts"
import { lockDocuments } from "./documentsLock.ts"

/**
 * A search's statements on the server, seen from another session holding a lock they wait for (the embedded database
 * has one session): how many run at once, and that a deadline or a requester leaving stops them.
 */

describe.skipIf(!postgresAvailable)(
  `bounded search statements on postgres${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
  () => {
    layer(corpusLayer("postgres"), { timeout: 120_000 })((it) => {
      it.effect(
        "the deadline cancels the search's statement: it is gone from pg_stat_activity while the lock it waited for is still held",
        () =>
          Effect.gen(function* () {
            const { waiting, release, holder } = yield* lockDocuments
            const started = Date.now()
            const late = yield* send({ query: { fuzzy: { content: { value: word(321), fuzziness: 2 } } }, timeout: "500ms" })
            expect(late.status).toBe(504)
            expect(Date.now() - started).toBeLessThan(5_000)
            yield* eventually(waiting, (count) => count === 0)
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(holder)
          }).pipe(Effect.withClock(Clock.make()))
      )

      it.effect("one more search than the machine has cores runs at once (at most six), the others wait for a slot", () =>
        Effect.gen(function* () {
          const { waiting, release, holder } = yield* lockDocuments
          const running = Math.min(6, os.availableParallelism() + 1)
          const searches = yield* Effect.all(
            Array.from({ length: running + 3 }, (_, index) => send({ query: { match: { content: word(index * 37 + 5) } }, size: 1 })),
            { concurrency: "unbounded" }
          ).pipe(Effect.fork)
          yield* eventually(waiting, (count) => count === running)
          yield* Effect.sleep("300 millis")
          expect(yield* waiting).toBe(running)
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
          const answers = yield* Fiber.join(searches)
          expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
        }).pipe(Effect.withClock(Clock.make()))
      )

      it.effect("a requester that goes away stops its search's statement once no one else waits for the answer", () =>
        Effect.gen(function* () {
          const { waiting, release, holder } = yield* lockDocuments
          const body = { query: { match: { content: word(654) } } }
          const first = yield* Effect.fork(send(body))
          const second = yield* Effect.fork(send(body))
          yield* eventually(waiting, (count) => count === 1)
          // One of two requesters leaves: the other still waits, so the statement goes on.
          yield* Fiber.interrupt(first)
          yield* Effect.sleep("300 millis")
          expect(yield* waiting).toBe(1)
          yield* Fiber.interrupt(second)
          yield* eventually(waiting, (count) => count === 0)
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
        }).pipe(Effect.withClock(Clock.make()))
      )
    })
  }
)
