import { Effect, Ref } from "effect"
import { DocumentQueue } from "../../domain/ingest/DocumentQueue.ts"
import { queueOf } from "../../domain/ingest/IngestOptions.ts"
import { walk } from "../../domain/ingest/Walk.ts"
import { ScanJob } from "./ScanJob.ts"

/** Paths queued per INSERT statement. */
const batchSize = 500

export const ScanJobLive = ScanJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const queue = yield* DocumentQueue
    const queued = yield* Ref.make(0)
    yield* walk(
      payload.directory,
      payload.options,
      batchSize,
      {
        onFiles: (files) =>
          queue
            .add({ project: payload.project, queueName: queueOf(payload) }, files, payload.skipIndexed)
            .pipe(Effect.flatMap((accepted) => Ref.update(queued, (count) => count + accepted))),
        onProgress: context.reportProgress
      },
      payload.boundary
    ).pipe(Effect.orDie)
    return yield* Ref.get(queued)
  })
)
