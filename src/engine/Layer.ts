import { Layer } from "effect"
import { Tasks } from "../domain/task/Tasks.ts"
import { Engine } from "./Engine.ts"
import { engineConfigLayer, type EngineOptions } from "./EngineConfig.ts"
import { JobQueue } from "./JobQueue.ts"
import { TaskEvents } from "./TaskEvents.ts"

/**
 * The job engine and the task services the APIs use; kinds register with it from their own layers (kinds/index.ts).
 * Needs the database (SqlClient, PgClient, DatabaseInfo). Closing it releases the running tasks to the queue.
 */
export const engineLayer = (options: EngineOptions = {}) =>
  Tasks.Default.pipe(
    Layer.provideMerge(Engine.Default),
    Layer.provideMerge(JobQueue.Default),
    Layer.provideMerge(TaskEvents.Default),
    Layer.provideMerge(engineConfigLayer(options))
  )
