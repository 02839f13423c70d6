import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** A request that names no package, or names it badly (no id nor url, a bad URL, an invalid filter). */
export class InvalidDeliverableRequest extends Schema.TaggedError<InvalidDeliverableRequest>()(
  "InvalidDeliverableRequest",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** No registry entry of that id, or the download URL answered 404. */
export class DeliverableNotFound extends Schema.TaggedError<DeliverableNotFound>()(
  "DeliverableNotFound",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return this.reason
  }
}

/** The download could not be made: the host is unreachable or answered an error status. */
export class DownloadFailed extends Schema.TaggedError<DownloadFailed>()(
  "DownloadFailed",
  { url: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 502 })
) {
  override get message() {
    return `cannot download ${this.url}: ${this.reason}`
  }
}

/** The download took longer than `deliverableDownloadTimeout`. */
export class DownloadTimedOut extends Schema.TaggedError<DownloadTimedOut>()(
  "DownloadTimedOut",
  { url: Schema.String, seconds: Schema.Number },
  HttpApiSchema.annotations({ status: 504 })
) {
  override get message() {
    return `cannot download ${this.url}: no complete answer within ${this.seconds} seconds`
  }
}

/**
 * What was downloaded cannot be installed: too large, not an archive, a checksum that differs from the
 * registry's, or an archive entry that would land outside the plugin's directory.
 */
export class DeliverableRefused extends Schema.TaggedError<DeliverableRefused>()(
  "DeliverableRefused",
  { url: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 422 })
) {
  override get message() {
    return `refused ${this.url}: ${this.reason}`
  }
}

/** Writing to or removing from the plugins or extensions folder failed. */
export class DeliverableFilesystemError extends Schema.TaggedError<DeliverableFilesystemError>()(
  "DeliverableFilesystemError",
  { action: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {
  override get message() {
    return `cannot ${this.action}: ${this.reason}`
  }
}

/** The registry file is missing or not a valid list of deliverables; Quarry does not start with it. */
export class RegistryInvalid extends Schema.TaggedError<RegistryInvalid>()("RegistryInvalid", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the deliverables registry ${this.file} cannot be used (--deliverablesRegistry): ${this.reason}`
  }
}
