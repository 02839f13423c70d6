import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { LegacyProject } from "../project/Project.ts"

/** The variants a note may have. */
export const noteVariants = ["dark", "light", "danger", "info", "success", "warning", "primary", "secondary"] as const

/** A note as the legacy API prints it. */
export const LegacyNote = Schema.Struct({
  project: LegacyProject,
  note: Schema.String,
  path: Schema.String,
  variant: Schema.String
}).annotations({ identifier: "Note" })
export type LegacyNote = typeof LegacyNote.Type

/** The body of the admin endpoint writing a note. */
export const NoteInput = Schema.Struct({
  note: Schema.String,
  variant: Schema.optional(Schema.Literal(...noteVariants))
}).annotations({ identifier: "NoteInput" })
export type NoteInput = typeof NoteInput.Type

export const maxNoteLength = 65_536

/**
 * Note paths are absolute: the path captured from a URL comes without its leading slash, so one is added, and
 * trailing slashes are dropped so that `/a/b/` and `/a/b` name the same folder.
 */
export const normalisePath = (path: string) => {
  const absolute = path.startsWith("/") ? path : `/${path}`
  return absolute.length > 1 ? absolute.replace(/\/+$/, "") : absolute
}

/** Whether a note stored for `notePath` applies to the document at `documentPath`: the same path or one below it. */
export const appliesTo = (notePath: string, documentPath: string) =>
  notePath === "/" || documentPath === notePath || documentPath.startsWith(`${notePath}/`)

export class InvalidNote extends Schema.TaggedError<InvalidNote>()(
  "InvalidNote",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

export class NoteNotFound extends Schema.TaggedError<NoteNotFound>()(
  "NoteNotFound",
  { project: Schema.String, path: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `no note at ${this.path} in ${this.project}`
  }
}
