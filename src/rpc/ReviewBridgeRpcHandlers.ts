import type { Headers } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Settings } from "../config/Settings.ts"
import type { BridgeCaller } from "../domain/review-bridge/ReviewBridge.ts"
import { ReviewBridgeForbidden } from "../domain/review-bridge/ReviewBridgeErrors.ts"
import { ReviewBridges } from "../domain/review-bridge/ReviewBridges.ts"
import { callerReviewUser } from "../domain/review/ReviewUser.ts"
import type { RpcCallers } from "./Caller.ts"
import { ReviewBridgeRpcs } from "./ReviewBridgeRpcs.ts"

/** The review bridge RPCs over the ReviewBridges service, which dies on database failures. */
export const reviewBridgeRpcHandlers = (callers: RpcCallers) =>
  ReviewBridgeRpcs.toLayer(
    Effect.gen(function* () {
      const bridges = yield* ReviewBridges
      const settings = yield* Settings
      const sql = yield* SqlClient.SqlClient
      // The endpoint's authenticated caller, with its review user as the review API reads it: staff when an administrator.
      const callerFrom = (headers: Headers.Headers) =>
        Effect.gen(function* () {
          const { current, editor } = yield* callers.caller(headers)
          const user = yield* callerReviewUser(editor.login, current.isAdmin, settings.mode !== "SERVER")
          if (user === undefined) return yield* new ReviewBridgeForbidden({ reason: `unknown user ${editor.login}` })
          return {
            login: editor.login,
            userId: user.id,
            isStaff: user.isStaff,
            grantedProjects: editor.grantedProjects
          } satisfies BridgeCaller
        }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      return {
        taskFromBatchSearch: (request, { headers }) =>
          Effect.flatMap(callerFrom(headers), (caller) => bridges.fromBatchSearch(caller, request)),
        tagReviewedDocuments: (request, { headers }) =>
          Effect.flatMap(callerFrom(headers), (caller) => bridges.tagDocuments(caller, request))
      }
    })
  )
