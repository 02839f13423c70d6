import { Layer } from "effect"
import { DocumentQueue } from "../../domain/ingest/DocumentQueue.ts"
import { ExtractionPool } from "../../extract/ExtractionPool.ts"
import { IndexJobLive } from "./IndexJob.ts"
import { ScanJobLive } from "./ScanJob.ts"
import { SleepJobLive } from "./SleepJob.ts"

/** Every job kind this process runs; adding a kind is one file in this folder and one entry here. */
export const jobKindsLayer = Layer.mergeAll(SleepJobLive)

/**
 * Scan and index: kept apart from the engine's own layer because they need the Extractor and a DocumentIndex,
 * which the engine and its tests do without. Wired next to the engine in Quarry.ts.
 */
export const ingestionKindsLayer = Layer.mergeAll(ScanJobLive, IndexJobLive).pipe(Layer.provide(Layer.merge(DocumentQueue.Default, ExtractionPool.Default)))
