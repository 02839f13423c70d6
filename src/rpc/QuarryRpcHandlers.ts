import { Layer } from "effect"
import type { RpcCallers } from "./Caller.ts"
import { documentRpcHandlers } from "./DocumentRpcHandlers.ts"
import { ingestRpcHandlers } from "./IngestRpcHandlers.ts"
import { reviewBridgeRpcHandlers } from "./ReviewBridgeRpcHandlers.ts"
import { searchRpcHandlers } from "./SearchRpcHandlers.ts"
import { taskRpcHandlers } from "./TaskRpcHandlers.ts"

/** The handlers of every group of `QuarryRpcs`, one line per group. */
export const quarryRpcHandlers = (callers: RpcCallers) =>
  Layer.mergeAll(
    taskRpcHandlers(callers.callerOf),
    ingestRpcHandlers(callers),
    searchRpcHandlers(callers),
    documentRpcHandlers(callers),
    reviewBridgeRpcHandlers(callers.callerOf)
  )
