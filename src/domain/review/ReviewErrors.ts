import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** A review assignment that breaks a rule of round attribution (not a checker, already attributed, too many). */
export class AttributionRefused extends Schema.TaggedError<AttributionRefused>()(
  "AttributionRefused",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** A task's choice group cannot change once the task has reviews. */
export class ChoiceGroupFrozen extends Schema.TaggedError<ChoiceGroupFrozen>()(
  "ChoiceGroupFrozen",
  {},
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return "You cannot change the choice group."
  }
}

/** An upload (CSV or ZIP) that cannot be imported as a whole. */
export class InvalidUpload extends Schema.TaggedError<InvalidUpload>()(
  "InvalidUpload",
  { reason: Schema.String, field: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** A row still referenced elsewhere (a choice group used by tasks). */
export class StillInUse extends Schema.TaggedError<StillInUse>()(
  "StillInUse",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}
