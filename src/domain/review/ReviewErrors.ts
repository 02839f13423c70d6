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

/** A checker's write the rules refuse (not their review, task not OPEN, record locked): 403. */
export class ReviewWriteForbidden extends Schema.TaggedError<ReviewWriteForbidden>()(
  "ReviewWriteForbidden",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return this.reason
  }
}

/** A field of a checker's write that cannot be accepted: 400, `field` is the JSON:API member concerned. */
export class ReviewFieldInvalid extends Schema.TaggedError<ReviewFieldInvalid>()(
  "ReviewFieldInvalid",
  { reason: Schema.String, field: Schema.Literal("choice", "note", "alternativeValue", "locked") },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** A task, record or review that does not exist or that the caller may not see: 404. */
export class ReviewNotFound extends Schema.TaggedError<ReviewNotFound>()(
  "ReviewNotFound",
  { resource: Schema.Literal("Task", "TaskRecord", "TaskRecordReview"), id: Schema.Number },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `No ${this.resource} matches the given query.`
  }
}

/** A filter of a review list whose value cannot be used: 400 at the attribute `field`. */
export class InvalidFilter extends Schema.TaggedError<InvalidFilter>()(
  "InvalidFilter",
  { field: Schema.String, reason: Schema.String, code: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}
