import { Layer } from "effect"
import { TaskRepo } from "../domain/task/TaskRepo.ts"
import { Tasks } from "../domain/task/Tasks.ts"
import { Engine } from "./Engine.ts"
import { engineConfigLayer, type EngineOptions } from "./EngineConfig.ts"
import { JobQueue } from "./JobQueue.ts"
import { jobKindsLayer } from "./kinds/index.ts"
import { TaskEvents } from "./TaskEvents.ts"

/**
 * The job engine with every kind registered, and the task services the APIs use. Needs the database
 * (SqlClient, PgClient, DatabaseInfo). Closing it releases the running tasks to the queue.
 */
export const engineLayer = (options: EngineOptions = {}) =>
  Layer.mergeAll(jobKindsLayer, Tasks.Default).pipe(
    Layer.provideMerge(Engine.Default),
    Layer.provideMerge(JobQueue.Default),
    Layer.provideMerge(Layer.mergeAll(TaskEvents.Default, TaskRepo.Default)),
    Layer.provideMerge(engineConfigLayer(options))
  )
