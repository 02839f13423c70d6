import { Effect } from "effect"
import { type SearchRequestError, searchRejected } from "./dsl/Errors.ts"

/**
 * Admission of searches to the database: at most `running` at once, so that the connection pool keeps connections
 * for the other requests (and for cancelling a search's statement, which takes one). Interactive searches past
 * that wait in a queue of at most `queued`, each at most `maxWaitMillis`, and are otherwise refused with ES's 429;
 * the others (batch searches) wait for their turn however long it takes.
 */
export interface AdmissionOptions {
  readonly running: number
  readonly queued: number
  readonly maxWaitMillis: number
}

export const makeAdmission = (options: AdmissionOptions) =>
  Effect.map(Effect.makeSemaphore(options.running), (semaphore) => {
    let waiting = 0
    const rejected = () =>
      searchRejected(
        `rejected execution of search: ${options.running} searches running and ${options.queued} waiting at most ${options.maxWaitMillis}ms each`
      )

    const slot = (interactive: boolean): Effect.Effect<void, SearchRequestError> => {
      if (!interactive) return semaphore.take(1)
      return Effect.suspend(() => {
        if (waiting >= options.queued) return Effect.fail(rejected())
        waiting++
        return semaphore
          .take(1)
          .pipe(Effect.timeoutFail({ duration: options.maxWaitMillis, onTimeout: rejected }), Effect.ensuring(Effect.sync(() => waiting--)))
      })
    }

    /** `effect` once a slot is free, the slot given back when it ends however it ends. */
    return <A, E, R>(effect: Effect.Effect<A, E, R>, interactive: boolean): Effect.Effect<A, E | SearchRequestError, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(slot(interactive)), Effect.ensuring(restore(effect), semaphore.release(1)))
      )
  })
