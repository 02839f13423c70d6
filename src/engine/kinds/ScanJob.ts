import { Effect, Schema } from "effect"
import { DocumentQueue, scanKind } from "../../domain/ingest/DocumentQueue.ts"
import { ScanPayload } from "../../domain/ingest/IngestOptions.ts"
import { walk } from "../../domain/ingest/Walk.ts"
import * as JobKind from "../JobKind.ts"

/** Paths queued per INSERT statement. */
const batchSize = 500

/**
 * Walks a directory with the scanner's filters and queues its files for the project's index tasks (§6.1). The
 * result is the number of files queued; a missing directory gives 0. A restarted scan walks again from the start:
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
    return yield* walk(payload.directory, payload.options, batchSize, {
      onFiles: (files) => queue.add(payload.project, files),
      onProgress: context.reportProgress
    }).pipe(Effect.orDie)
  })
)
