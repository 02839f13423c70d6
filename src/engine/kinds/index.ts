import { Layer } from "effect"
import { DocumentQueue } from "../../domain/ingest/DocumentQueue.ts"
import { ExtractionPool } from "../../extract/ExtractionPool.ts"
import { BatchDownloadJobLive } from "./BatchDownloadJobLive.ts"
import { BatchSearchJobLive } from "./BatchSearchJobLive.ts"
import { IndexJobLive } from "./IndexJobLive.ts"
import { NerJobLive } from "./NerJobLive.ts"
import { ScanJobLive } from "./ScanJobLive.ts"
import { SleepJobLive } from "./SleepJobLive.ts"

/**
 * Scan and index, with the queue and extraction workers they share: apart from the other kinds because
 * `--mode CLI` (and the ingestion tests and benchmarks) run them without a search backend or NER workers.
 */
export const ingestionKindsLayer = Layer.mergeAll(ScanJobLive, IndexJobLive).pipe(
  Layer.provide(Layer.merge(DocumentQueue.Default, ExtractionPool.Default))
)

/** Every job kind the server runs; adding a kind is a definition and its Live handler in this folder, and one entry here. */
export const jobKindsLayer = Layer.mergeAll(SleepJobLive, ingestionKindsLayer, NerJobLive, BatchSearchJobLive, BatchDownloadJobLive)

/** What `--mode CLI` runs: the kinds that need no search backend, NER workers or batch-search repository. */
export const indexingKindsLayer = Layer.merge(SleepJobLive, ingestionKindsLayer)
