import { Schema } from "effect"
import { UnknownPipeline } from "../../ner/Pipeline.ts"
import * as JobKind from "../JobKind.ts"

export const NerPayload = Schema.Struct({
  project: Schema.String,
  /** A pipeline name of src/ner/Pipelines.ts. */
  pipeline: Schema.String
})
export type NerPayload = typeof NerPayload.Type

/**
 * findNames: runs a pipeline over every document of the project whose `nerTags` lack
 * it. Each batch's entities are written as children of their documents, and the documents marked (status DONE,
 * the pipeline appended to nerTags) in one transaction, so a stopped or restarted task goes on with the documents
 * not yet marked. Documents indexed while it runs are listed by the next batch; while a scan or index task of the
 * project runs, an empty list is waited on rather than taken as the end. The result is the number of documents
 * processed.
 */
export const NerJob = JobKind.make({
  name: "findNames",
  runnerType: "org.icij.datashare.nlp.NlpApp",
  payload: NerPayload,
  success: Schema.Int,
  error: UnknownPipeline,
  /** Documents processed by earlier runs of the task. */
  checkpoint: Schema.Int
})
