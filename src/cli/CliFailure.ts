import { Schema } from "effect"

/** A command line that cannot be carried out; printed as one line. */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", { message: Schema.String }) {}
