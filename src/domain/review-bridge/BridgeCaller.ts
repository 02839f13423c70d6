import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { findReviewUser } from "../review/ReviewUser.ts"
import { adminRole, projectsInDetails } from "../user/User.ts"
import type { BridgeCaller } from "./ReviewBridge.ts"
import { ReviewBridgeForbidden } from "./ReviewBridgeErrors.ts"

/**
 * The caller behind a login, for the command line, with the rights the HTTP API would
 * give them: in LOCAL mode the default user is staff with every project (as the local authenticator has it);
 * otherwise the user's row says it, projects from its details, staff from the admin role.
 */
export const bridgeCallerOf = (login: string) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const sql = yield* SqlClient.SqlClient
    const local = settings.mode !== "SERVER" && login === settings.defaultUserName
    const user = yield* findReviewUser(login, local)
    if (user === undefined) return yield* new ReviewBridgeForbidden({ reason: `unknown user ${login}` })
    if (local) {
      const projects = yield* sql<{ id: string }>`SELECT id FROM projects ORDER BY id`
      const grantedProjects = [settings.defaultProject, ...projects.map((row) => row.id).filter((id) => id !== settings.defaultProject)]
      return { login, userId: user.id, isStaff: true, grantedProjects } satisfies BridgeCaller
    }
    const [row] = yield* sql<{
      details: Record<string, unknown>
      roles: ReadonlyArray<string>
    }>`SELECT details, roles FROM users WHERE id = ${user.id}`
    return {
      login,
      userId: user.id,
      isStaff: row?.roles.includes(adminRole) ?? false,
      grantedProjects: projectsInDetails(row?.details ?? {})
    } satisfies BridgeCaller
  }).pipe(dieOnSqlError)
