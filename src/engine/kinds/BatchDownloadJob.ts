import { Schema } from "effect"
import { BatchDownloadPayload, batchDownloadKind } from "../../domain/batch-download/BatchDownload.ts"
import { ArchiveWriteFailed } from "../../domain/batch-download/ZipArchive.ts"
import { TaskFile } from "../../domain/task/Task.ts"
import * as JobKind from "../JobKind.ts"

/** The search backend refused the download's query. */
export class BatchDownloadSearchFailed extends Schema.TaggedError<BatchDownloadSearchFailed>()("BatchDownloadSearchFailed", {
  message: Schema.String
}) {}

/**
 * Runs a batch download: every document matching the query in the projects goes into
 * a zip under the name of its path (without the leading '/'); embedded documents are extracted again from their
 * root file and so carry its name, and a name already in the zip is skipped, as are files that cannot be read.
 * Adding stops after batchDownloadMaxNbFiles files or once the bytes added exceed batchDownloadMaxSize (checked
 * before each file). No hit: DONE without a result and without a zip.
 */
export const BatchDownloadJob = JobKind.make({
  name: batchDownloadKind,
  runnerType: "org.icij.datashare.tasks.BatchDownloadRunner",
  payload: BatchDownloadPayload,
  success: Schema.NullOr(TaskFile),
  error: Schema.Union(BatchDownloadSearchFailed, ArchiveWriteFailed)
})
