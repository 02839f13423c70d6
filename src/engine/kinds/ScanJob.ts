import { Schema } from "effect"
import { scanKind } from "../../domain/ingest/DocumentQueue.ts"
import { ScanPayload } from "../../domain/ingest/IngestOptions.ts"
import * as JobKind from "../JobKind.ts"

/**
 * Walks a directory with the scanner's filters and queues its files for the project's index tasks. The
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
