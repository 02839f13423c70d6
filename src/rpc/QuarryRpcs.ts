import { BatchSearchRpcs } from "./BatchSearchRpcs.ts"
import { DocumentRpcs } from "./DocumentRpcs.ts"
import { IngestRpcs } from "./IngestRpcs.ts"
import { NamedEntityRpcs } from "./NamedEntityRpcs.ts"
import { ProjectRpcs } from "./ProjectRpcs.ts"
import { RefuseNul } from "./RefuseNul.ts"
import { ReviewBridgeRpcs } from "./ReviewBridgeRpcs.ts"
import { ReviewRpcs } from "./ReviewRpcs.ts"
import { SearchRpcs } from "./SearchRpcs.ts"
import { TaskRpcs } from "./TaskRpcs.ts"
import { UserRpcs } from "./UserRpcs.ts"

/**
 * Every RPC group, served as one at `/rpc` and typed by `src/rpc/client.ts`. A new group is added here (its
 * contract) and in `quarryRpcHandlers` (its handlers). Any procedure may fail with `InvalidPayload` (RefuseNul).
 */
export class QuarryRpcs extends TaskRpcs.merge(
  IngestRpcs,
  SearchRpcs,
  DocumentRpcs,
  BatchSearchRpcs,
  NamedEntityRpcs,
  ProjectRpcs,
  UserRpcs,
  ReviewRpcs,
  ReviewBridgeRpcs
).middleware(RefuseNul) {}

/**
 * Where each transport is served: HTTP with NDJSON (`/rpc`) or MessagePack (`/rpc/msgpack`) serialisation, and
 * WebSocket with JSON messages (`/rpc/ws`), whose one connection carries many calls and streams.
 */
export const rpcPaths = { ndjson: "/rpc", msgpack: "/rpc/msgpack", websocket: "/rpc/ws" } as const
