import { Option, Schema } from "effect"
import type { Task } from "../../domain/task/Task.ts"
import { IndexPayload } from "../../domain/ingest/IngestOptions.ts"
import * as JobKind from "../JobKind.ts"

/** Files taken from the queue, and the bytes of those files, by the task's runs so far. */
export const IndexCheckpoint = Schema.Struct({ files: Schema.Int, bytes: Schema.Number })
export type IndexCheckpoint = typeof IndexCheckpoint.Type

/** Tasks checkpointed before bytes were counted saved the number of files alone. */
const filesOnlyCheckpoint = Schema.transform(Schema.Int, IndexCheckpoint, {
  strict: true,
  decode: (files) => ({ files, bytes: 0 }),
  encode: (checkpoint) => checkpoint.files
})

/**
 * Drains the project's document queue with workers that keep `parallelism` things busy (each extracts its next
 * claim while the database writes the one before). Each worker claims a few files, extracts them, and writes their
 * documents and removes them from the queue in one transaction, so that a
 * stopped or crashed task leaves every file either indexed and dequeued or still queued; the next index task
 * (or this one, restarted) takes the rest. While a scan of the project is queued or running, an empty queue
 * is waited on rather than taken as the end. The result is the number of files taken from the queue.
 */
export const IndexJob = JobKind.make({
  name: "index",
  runnerType: "org.icij.datashare.tasks.IndexTask",
  payload: IndexPayload,
  success: Schema.Int,
  error: Schema.Never,
  checkpoint: Schema.Union(IndexCheckpoint, filesOnlyCheckpoint)
})

/** How far and how fast an index task has gone: what the task API and the command line's progress show. */
export interface IndexRate {
  readonly files: number
  readonly bytes: number
  readonly filesPerSecond: number
  readonly megabytesPerSecond: number
}

const decodeCheckpoint = Schema.decodeUnknownOption(IndexJob.checkpoint)

/** The rate of an index task that has started, from its checkpoint and its start (to its end once finished). */
export const indexRateOf = (task: Task, now: Date): IndexRate | undefined => {
  if (task.kind !== IndexJob.name || task.startedAt === null) return undefined
  const { files, bytes } = Option.getOrElse(decodeCheckpoint(task.checkpoint), () => ({ files: 0, bytes: 0 }))
  const seconds = Math.max(0.001, ((task.finishedAt ?? now).getTime() - task.startedAt.getTime()) / 1000)
  const rounded = (value: number) => Math.round(value * 10) / 10
  return { files, bytes, filesPerSecond: rounded(files / seconds), megabytesPerSecond: rounded(bytes / 1024 ** 2 / seconds) }
}
