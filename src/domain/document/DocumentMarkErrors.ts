import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** A list of document ids or tags with an invalid item (empty, too long, a tag with a comma), or a missing parameter. */
export class InvalidMarks extends Schema.TaggedError<InvalidMarks>()(
  "InvalidMarks",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** More document ids or tags in one request than the documented maximum. */
export class TooManyMarks extends Schema.TaggedError<TooManyMarks>()(
  "TooManyMarks",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {
  override get message() {
    return this.reason
  }
}
