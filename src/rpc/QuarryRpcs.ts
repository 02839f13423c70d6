import { DocumentRpcs } from "./DocumentRpcs.ts"
import { IngestRpcs } from "./IngestRpcs.ts"
import { ReviewBridgeRpcs } from "./ReviewBridgeRpcs.ts"
import { SearchRpcs } from "./SearchRpcs.ts"
import { TaskRpcs } from "./TaskRpcs.ts"

/**
 * Every RPC group, served as one at `/rpc` and typed by `src/rpc/client.ts`. A new group is added here (its
 * contract) and in `quarryRpcHandlers` (its handlers).
 */
export class QuarryRpcs extends TaskRpcs.merge(IngestRpcs, SearchRpcs, DocumentRpcs, ReviewBridgeRpcs) {}

/**
 * Where each transport is served: HTTP with NDJSON (`/rpc`) or MessagePack (`/rpc/msgpack`) serialisation, and
 * WebSocket with JSON messages (`/rpc/ws`), whose one connection carries many calls and streams.
 */
export const rpcPaths = { ndjson: "/rpc", msgpack: "/rpc/msgpack", websocket: "/rpc/ws" } as const
