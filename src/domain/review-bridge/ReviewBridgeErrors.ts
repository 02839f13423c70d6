import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** Not staff, or without access to a project the batch search (or a confirmed record) belongs to. */
export class ReviewBridgeForbidden extends Schema.TaggedError<ReviewBridgeForbidden>()(
  "ReviewBridgeForbidden",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return this.reason
  }
}

/** A request field that cannot be accepted; `field` names the request member concerned. */
export class ReviewBridgeInvalid extends Schema.TaggedError<ReviewBridgeInvalid>()(
  "ReviewBridgeInvalid",
  { reason: Schema.String, field: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** A review task, review project, choice group or checker named by the request does not exist. */
export class ReviewBridgeNotFound extends Schema.TaggedError<ReviewBridgeNotFound>()(
  "ReviewBridgeNotFound",
  { reason: Schema.String, field: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return this.reason
  }
}
