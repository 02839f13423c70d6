import { Effect, Option } from "effect"
import { SleepFailed, SleepJob } from "./SleepJob.ts"

export const SleepJobLive = SleepJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const start = Option.getOrElse(context.checkpoint.saved, () => 0)
    for (let step = start + 1; step <= payload.steps; step++) {
      if (payload.stepMillis > 0) yield* Effect.sleep(payload.stepMillis)
      yield* context.reportProgress(step / payload.steps)
      yield* context.checkpoint.save(step)
    }
    if (payload.failWith !== undefined) return yield* new SleepFailed({ message: payload.failWith })
    return payload.steps
  })
)
