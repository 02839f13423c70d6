import { Effect } from "effect"
import { compromisePipeline } from "./CompromisePipeline.ts"
import { emailPipeline } from "./EmailPipeline.ts"
import { type NerPipeline, UnknownPipeline } from "./Pipeline.ts"

/** Every pipeline this process runs; `GET /api/ner/pipelines` lists exactly these. */
export const pipelines: ReadonlyArray<NerPipeline> = [emailPipeline, compromisePipeline]

export const pipelineNames = pipelines.map((pipeline) => pipeline.name)

/** The pipeline of that name (exact, upper-case as the reference spells them); 400 for any other. */
export const pipelineNamed = (name: string): Effect.Effect<NerPipeline, UnknownPipeline> => {
  const found = pipelines.find((pipeline) => pipeline.name === name)
  return found === undefined ? Effect.fail(new UnknownPipeline({ name, available: pipelineNames })) : Effect.succeed(found)
}
