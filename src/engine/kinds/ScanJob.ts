import { Effect, Ref, Schema } from "effect"
import { DocumentQueue, scanKind } from "../../domain/ingest/DocumentQueue.ts"
import { queueOf, ScanPayload } from "../../domain/ingest/IngestOptions.ts"
import { walk } from "../../domain/ingest/Walk.ts"
import * as JobKind from "../JobKind.ts"

/** Paths queued per INSERT statement. */
const batchSize = 500

/**
 * Walks a directory with the scanner's filters and queues its files for the project's index tasks (§6.1). The
 * result is the number of files queued (with `skipIndexed`, those not indexed yet); a missing directory gives 0. A restarted scan walks again from the start:
 * queueing is idempotent, so files already queued are not duplicated.
 */
export const ScanJob = JobKind.make({
  name: scanKind,
  runnerType: "org.icij.datashare.tasks.ScanTask",
  payload: ScanPayload,
  success: Schema.Int,
  error: Schema.Never
})

export const ScanJobLive = ScanJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const queue = yield* DocumentQueue
    const queued = yield* Ref.make(0)
    yield* walk(payload.directory, payload.options, batchSize, {
      onFiles: (files) =>
        queue.add({ project: payload.project, queueName: queueOf(payload) }, files, payload.skipIndexed).pipe(
          Effect.flatMap((accepted) => Ref.update(queued, (count) => count + accepted))
        ),
      onProgress: context.reportProgress
    }, payload.boundary).pipe(Effect.orDie)
    return yield* Ref.get(queued)
  })
)
