import { Layer } from "effect"
import { batchSearchRpcHandlers } from "./BatchSearchRpcHandlers.ts"
import type { RpcCallers } from "./Caller.ts"
import { documentRpcHandlers } from "./DocumentRpcHandlers.ts"
import { ingestRpcHandlers } from "./IngestRpcHandlers.ts"
import { namedEntityRpcHandlers } from "./NamedEntityRpcHandlers.ts"
import { projectRpcHandlers } from "./ProjectRpcHandlers.ts"
import { RefuseNulLive } from "./RefuseNul.ts"
import { reviewBridgeRpcHandlers } from "./ReviewBridgeRpcHandlers.ts"
import { reviewRpcHandlers } from "./ReviewRpcHandlers.ts"
import { searchRpcHandlers } from "./SearchRpcHandlers.ts"
import { taskRpcHandlers } from "./TaskRpcHandlers.ts"
import { userRpcHandlers } from "./UserRpcHandlers.ts"

/** The handlers of every group of `QuarryRpcs`, one line per group, and the groups' middleware. */
export const quarryRpcHandlers = (callers: RpcCallers) =>
  Layer.mergeAll(
    RefuseNulLive,
    taskRpcHandlers(callers.callerOf),
    ingestRpcHandlers(callers),
    searchRpcHandlers(callers),
    documentRpcHandlers(callers),
    batchSearchRpcHandlers(callers),
    namedEntityRpcHandlers(callers),
    projectRpcHandlers(callers),
    userRpcHandlers(callers),
    reviewRpcHandlers(callers),
    reviewBridgeRpcHandlers(callers)
  )
