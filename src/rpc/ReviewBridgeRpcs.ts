import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { BatchSearchNotFound } from "../domain/batch-search/BatchSearchErrors.ts"
import {
  FromBatchSearchRequest,
  FromBatchSearchResult,
  TagDocumentsRequest,
  TagDocumentsResult
} from "../domain/review-bridge/ReviewBridge.ts"
import { ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound } from "../domain/review-bridge/ReviewBridgeErrors.ts"
import { DocumentIndexUnavailable } from "../search/DocumentIndex.ts"

/**
 * Search to review and back, for internal tools, served at `/rpc` next to the task RPCs. Calls act as the
 * authenticated caller, who must be staff with access to the projects concerned (the HTTP routes' rules).
 */
export class ReviewBridgeRpcs extends RpcGroup.make(
  /** The hits of a batch search as the records of a new review task, or the new hits added to `task`. */
  Rpc.make("taskFromBatchSearch", {
    payload: FromBatchSearchRequest,
    success: FromBatchSearchResult,
    error: Schema.Union(ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound, BatchSearchNotFound)
  }),
  /** Tags the documents of a task's confirmed records in the search service. */
  Rpc.make("tagReviewedDocuments", {
    payload: TagDocumentsRequest,
    success: TagDocumentsResult,
    error: Schema.Union(ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound, DocumentIndexUnavailable)
  })
) {}
