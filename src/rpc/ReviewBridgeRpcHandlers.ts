import type { Headers } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Settings } from "../config/Settings.ts"
import { bridgeCallerOf } from "../domain/review-bridge/BridgeCaller.ts"
import { ReviewBridges } from "../domain/review-bridge/ReviewBridges.ts"
import { ReviewBridgeRpcs } from "./ReviewBridgeRpcs.ts"
import type { CallerOf } from "./TaskRpcHandlers.ts"

/** The review bridge RPCs over the ReviewBridges service; database failures are defects. */
export const reviewBridgeRpcHandlers = (callerOf: CallerOf) =>
  ReviewBridgeRpcs.toLayer(
    Effect.gen(function* () {
      const bridges = yield* ReviewBridges
      const context = yield* Effect.context<Settings | SqlClient.SqlClient>()
      // The endpoint knows the caller's login; rights are read again from the users table, as the HTTP API has them.
      const callerFrom = (headers: Headers.Headers) => Effect.flatMap(callerOf(headers), bridgeCallerOf).pipe(Effect.provide(context))
      return {
        taskFromBatchSearch: (request, { headers }) =>
          Effect.flatMap(callerFrom(headers), (caller) => bridges.fromBatchSearch(caller, request)).pipe(Effect.catchTag("SqlError", Effect.die)),
        tagReviewedDocuments: (request, { headers }) =>
          Effect.flatMap(callerFrom(headers), (caller) => bridges.tagDocuments(caller, request)).pipe(Effect.catchTag("SqlError", Effect.die))
      }
    })
  )
