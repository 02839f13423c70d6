import { pathToFileURL } from "node:url"
import { Schema } from "effect"

/** A projects row as the repository reads it. */
export interface ProjectRow {
  readonly id: string
  readonly sourcePath: string | null
  readonly label: string | null
  readonly description: string | null
  readonly publisherName: string | null
  readonly maintainerName: string | null
  readonly logoUrl: string | null
  readonly sourceUrl: string | null
  readonly allowFromMask: string | null
  readonly creationDate: Date
  readonly updateDate: Date
}

/** A project as the legacy API prints it; the mask is never shown. */
export const LegacyProject = Schema.Struct({
  name: Schema.String,
  sourcePath: Schema.String,
  label: Schema.String,
  description: Schema.NullOr(Schema.String),
  publisherName: Schema.NullOr(Schema.String),
  maintainerName: Schema.NullOr(Schema.String),
  logoUrl: Schema.NullOr(Schema.String),
  sourceUrl: Schema.NullOr(Schema.String),
  creationDate: Schema.String,
  updateDate: Schema.String
}).annotations({ identifier: "Project" })
export type LegacyProject = typeof LegacyProject.Type

const optionalText = Schema.optional(Schema.NullOr(Schema.String))

/** The editable fields of a project; an absent one is stored empty (null), as the legacy API's PUT does. */
export const ProjectFields = {
  label: optionalText,
  description: optionalText,
  publisherName: optionalText,
  maintainerName: optionalText,
  logoUrl: optionalText,
  sourceUrl: optionalText
}

/** The body of POST /api/project/ and PUT /api/project/:id: a Project object, or a bare project name. */
export const ProjectInput = Schema.Union(
  Schema.String,
  Schema.Struct({ name: optionalText, sourcePath: optionalText, ...ProjectFields })
).annotations({ identifier: "ProjectInput" })
export type ProjectInput = typeof ProjectInput.Type

/** The editable fields of a project, as stored. */
export interface ProjectFields {
  readonly label: string | null
  readonly description: string | null
  readonly publisherName: string | null
  readonly maintainerName: string | null
  readonly logoUrl: string | null
  readonly sourceUrl: string | null
}

/** Dates as the reference's Jackson writes them: milliseconds and a numeric UTC offset. */
export const legacyDate = (date: Date) => date.toISOString().replace(/Z$/, "+00:00")

/** Paths print as file URIs, as the reference serialises a java.nio Path. */
const fileUri = (path: string) => pathToFileURL(path).href

export const toLegacyProject = (row: ProjectRow): LegacyProject => ({
  name: row.id,
  sourcePath: fileUri(row.sourcePath ?? `/vault/${row.id}`),
  label: row.label ?? row.id,
  description: row.description,
  publisherName: row.publisherName,
  maintainerName: row.maintainerName,
  logoUrl: row.logoUrl,
  sourceUrl: row.sourceUrl,
  creationDate: legacyDate(row.creationDate),
  updateDate: legacyDate(row.updateDate)
})

/** A granted project without a row, as the reference builds it from its name alone (dates are "now"). */
export const projectFromName = (name: string, now: Date): LegacyProject =>
  toLegacyProject({
    id: name,
    sourcePath: null,
    label: null,
    description: null,
    publisherName: null,
    maintainerName: null,
    logoUrl: null,
    sourceUrl: null,
    allowFromMask: null,
    creationDate: now,
    updateDate: now
  })

/** Project ids travel in URL segments and comma-separated lists, so they hold neither '/' nor ','. */
export const isValidProjectId = (id: string) => /^[^/,\s]{1,255}$/.test(id)
