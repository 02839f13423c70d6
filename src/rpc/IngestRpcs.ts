import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { InvalidTaskOption } from "../domain/ingest/IngestOptions.ts"
import { ProjectForbidden } from "../domain/project/ProjectErrors.ts"
import { Task } from "../domain/task/Task.ts"
import { BadRequest, Forbidden } from "../domain/RequestErrors.ts"

/**
 * The reference's task options, as the legacy task endpoints take them in `{"options": {...}}`: `defaultProject`,
 * `queueName`, `parallelism`, `ocr`, `language`, `maxContentLength` (index); `includeHiddenFiles`, `includeOSFiles`,
 * `includePattern`, `excludePattern`, `followSymlinks`, `maxDepth`, `filter` (scan). They override the server settings.
 */
const TaskOptions = Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** A bad option, a project that is not the caller's (administrators may name any), a folder outside the data folder. */
const StartError = Schema.Union(InvalidTaskOption, ProjectForbidden, Forbidden, BadRequest)

/** Starting scans and index tasks, as `/api/task/batchUpdate/...` does; follow them with the task RPCs. */
export class IngestRpcs extends RpcGroup.make(
  /** An index task draining the project's document queue; it ends once no scan of the project is left. */
  Rpc.make("startIndex", { payload: { options: TaskOptions }, success: Task, error: StartError }),
  /** A scan of `path` (an absolute folder in the data folder) into the project's document queue. */
  Rpc.make("startScan", { payload: { path: Schema.String, options: TaskOptions }, success: Task, error: StartError }),
  /** A scan of `path` (the data folder when absent), then an index task of the same project waiting for its files. */
  Rpc.make("scanAndIndex", {
    payload: { path: Schema.optional(Schema.String), options: TaskOptions },
    success: Schema.Struct({ scan: Task, index: Task }),
    error: StartError
  })
) {}
