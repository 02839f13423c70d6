import { Schema } from "effect"

/** A user as the legacy API prints it (`GET /api/users/me`, tags, batch searches, tasks). */
export const LegacyUser = Schema.Struct({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  provider: Schema.String,
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type LegacyUser = typeof LegacyUser.Type

/** The application name under which the reference lists a user's projects in `details.groups_by_applications`. */
export const applicationName = "datashare"

/** The projects a user's details grant (`details.groups_by_applications.datashare`). */
export const projectsInDetails = (details: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const groups = details.groups_by_applications
  if (typeof groups !== "object" || groups === null) return []
  const projects = (groups as Record<string, unknown>)[applicationName]
  return Array.isArray(projects) ? projects.filter((p): p is string => typeof p === "string") : []
}

/** A user of the users table as the rest of the code sees it; the password hash never leaves Users. */
export interface StoredUser {
  readonly login: string
  readonly name: string | null
  readonly email: string | null
  readonly provider: string
  readonly details: Readonly<Record<string, unknown>>
  readonly roles: ReadonlyArray<string>
}

export const adminRole = "admin"

export const isAdmin = (user: StoredUser) => user.roles.includes(adminRole)

export const toLegacyUser = (user: StoredUser): LegacyUser => ({
  id: user.login,
  name: user.name,
  email: user.email,
  provider: user.provider,
  details: user.details
})
