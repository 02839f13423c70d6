import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()(
  "ProjectNotFound",
  { id: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return "Project not found"
  }
}

export class ProjectExists extends Schema.TaggedError<ProjectExists>()(
  "ProjectExists",
  { id: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {
  override get message() {
    return "Project already exists."
  }
}

/** A project body that cannot be stored (no name, a sourcePath outside dataDir, a field too long). */
export class InvalidProject extends Schema.TaggedError<InvalidProject>()(
  "InvalidProject",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}

/** The project is not among the caller's, or the caller may not change projects (SERVER mode, not an admin). */
export class ProjectForbidden extends Schema.TaggedError<ProjectForbidden>()(
  "ProjectForbidden",
  { project: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return this.reason
  }
}

/** Deleting a project that is not one of the caller's (seed: 401). */
export class NotYourProject extends Schema.TaggedError<NotYourProject>()(
  "NotYourProject",
  { project: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {
  override get message() {
    return `${this.project} is not one of your projects`
  }
}

/** The project's allow_from_mask refuses the client address. */
export class DownloadNotAllowed extends Schema.TaggedError<DownloadNotAllowed>()(
  "DownloadNotAllowed",
  { project: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {
  override get message() {
    return "Download not allowed"
  }
}
