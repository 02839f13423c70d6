import { Schema } from "effect"
import * as JobKind from "../JobKind.ts"

/** The failure a sleep task is asked to end with. */
export class SleepFailed extends Schema.TaggedError<SleepFailed>()("SleepFailed", { message: Schema.String }) {}

/**
 * A diagnostic kind: counts to `steps`, one step every `stepMillis`, reporting progress and saving the count as
 * its checkpoint, so that a restarted run continues where the last one stopped. It is used by tests and
 * benchmarks; no legacy endpoint starts it.
 */
export const SleepJob = JobKind.make({
  name: "sleep",
  runnerType: "quarry.tasks.SleepTask",
  payload: Schema.Struct({
    steps: Schema.Int.pipe(Schema.nonNegative()),
    stepMillis: Schema.Int.pipe(Schema.nonNegative()),
    /** Fails with this message after the last step instead of succeeding. */
    failWith: Schema.optional(Schema.String)
  }),
  success: Schema.Int,
  error: SleepFailed,
  checkpoint: Schema.Int
})
