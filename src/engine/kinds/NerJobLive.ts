import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { NerPool } from "../../ner/NerPool.ts"
import { entitiesOf } from "../../ner/Pipeline.ts"
import { pipelineNamed } from "../../ner/Pipelines.ts"
import { DocumentIndex, type NerSource } from "../../search/DocumentIndex.ts"
import { JobQueue } from "../JobQueue.ts"
import { IndexJob } from "./IndexJob.ts"
import { NerJob } from "./NerJob.ts"
import { ScanJob } from "./ScanJob.ts"

/**
 * Documents read, annotated and written per transaction: a stop loses at most this much work. Larger batches did not
 * measure faster: the time goes to rewriting each marked document's row and index entries, not to statements.
 */
const batchSize = 200
/** How often an idle task looks again while an ingestion of its project runs. */
const ingestionPollInterval = "250 millis"

export const NerJobLive = NerJob.toLayer((payload, context) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const index = yield* DocumentIndex
    const pool = yield* NerPool
    const pipeline = yield* pipelineNamed(payload.pipeline)
    const { project } = payload

    // Only running tasks are waited on: a queued one may be waiting for this task's slot in the engine.
    const ingestionRunning = jobs.runningFor([ScanJob.name, IndexJob.name], project)

    // A slow pipeline runs on the worker threads, so that the rest of the process (requests, other tasks) goes on.
    const entitiesOfBatch = (documents: ReadonlyArray<NerSource>) =>
      Effect.map(
        pool.annotateDocuments(
          pipeline,
          documents.map(({ content, contentType, metadata }) => ({ content, contentType, metadata }))
        ),
        (annotations) => documents.flatMap((document, i) => entitiesOf(annotations[i] ?? [], document, pipeline.name))
      )

    let done = Option.getOrElse(context.checkpoint.saved, () => 0)
    // Counted again only once passed, when documents indexed since the start are still to do.
    let total = done + (yield* index.countWithoutNerTag(project, pipeline.name))
    // Documents are read in id order from a cursor, so that each batch starts where the last one ended; once at
    // the end, a pass from the start finds the documents indexed since behind the cursor.
    let cursor = ""
    for (;;) {
      const documents = yield* index.documentsWithoutNerTag(project, pipeline.name, cursor, batchSize)
      if (documents.length === 0) {
        if (cursor !== "") cursor = ""
        else if (yield* ingestionRunning) yield* Effect.sleep(ingestionPollInterval)
        else {
          yield* index.refresh()
          return done
        }
        continue
      }
      cursor = documents.at(-1)?.id ?? cursor
      // A document in a language the pipeline does not read is marked with no entities, so that it is not listed again.
      const entities = yield* entitiesOfBatch(documents.filter((document) => pipeline.supports(document.language)))
      done += documents.length
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* index.bulkIndexNamedEntities(project, entities)
          yield* index.markNerTagged(project, documents, pipeline.name)
          yield* context.checkpoint.save(done)
        })
      )
      if (done >= total) total = done + (yield* index.countWithoutNerTag(project, pipeline.name))
      yield* context.reportProgress(total === 0 ? 1 : Math.min(1, done / total))
    }
  }).pipe(Effect.catchTags({ SqlError: Effect.die, DocumentIndexUnavailable: Effect.die, NerWorkerFailed: Effect.die }))
)
