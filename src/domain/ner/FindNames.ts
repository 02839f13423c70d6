import { Effect } from "effect"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { Engine } from "../../engine/Engine.ts"
import { NerJob } from "../../engine/kinds/NerJob.ts"
import type { NerPipeline } from "../../ner/Pipeline.ts"
import { requireWritableProject } from "../project/Access.ts"
import { CurrentUser } from "../user/CurrentUser.ts"

/**
 * Queues a findNames task running `pipeline` over every document of the project not yet tagged with it, once the
 * caller may write to the project; whichever door the request came in by (`/api/task/findNames/:pipeline`, the
 * findNames RPC), the same check and the same task.
 */
export const startFindNames = (pipeline: NerPipeline, project: string) =>
  Effect.gen(function* () {
    yield* requireWritableProject(project)
    const userId = (yield* CurrentUser).user.id
    return yield* dieOnSqlError((yield* Engine).submit(NerJob, { project, pipeline: pipeline.name }, { userId }))
  })
