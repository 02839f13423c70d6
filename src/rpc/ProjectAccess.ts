import type { Headers } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Settings } from "../config/Settings.ts"
import { requireGranted } from "../domain/project/Access.ts"
import type { ProjectEditor } from "../domain/project/Projects.ts"
import { Users } from "../domain/user/Users.ts"
import { type CurrentUserShape, localCurrentUser } from "../http/middleware/Auth.ts"
import { currentUserOf } from "../http/middleware/ServerAuth.ts"
import type { CallerOf } from "./TaskRpcHandlers.ts"

/** The caller of an RPC as the HTTP handlers see theirs: the user, its admin role and its granted projects. */
export interface RpcCaller {
  readonly current: CurrentUserShape
  /** What the project-scoped services check (login, granted projects, admin role), read once per call. */
  readonly editor: ProjectEditor
}

/**
 * Rebuilds the authenticated caller of an RPC from its login, as the authenticator of the mode builds it: LOCAL
 * mode's single administrator, or in SERVER mode the stored user with the projects and roles it has now.
 */
export const makeRpcCallers = (callerOf: CallerOf) =>
  Effect.gen(function* () {
    const settings = yield* Settings
    const users = yield* Users
    const local = localCurrentUser(settings, yield* SqlClient.SqlClient)
    const currentOf = (login: string) =>
      settings.mode === "SERVER" ? Effect.map(users.get(login), currentUserOf) : Effect.succeed(local)
    return (headers: Headers.Headers) =>
      Effect.gen(function* () {
        const current = yield* currentOf(yield* callerOf(headers))
        const editor: ProjectEditor = { login: current.user.id, grantedProjects: yield* current.grantedProjects, isAdmin: current.isAdmin }
        return { current, editor } satisfies RpcCaller
      }).pipe(Effect.orDie)
  })

export type RpcCallers = Effect.Effect.Success<ReturnType<typeof makeRpcCallers>>

/**
 * Fails with ProjectForbidden unless the caller may write into `project`: one of its granted projects, any project
 * for an administrator (as requireWritableProject does for the index, scan and findNames endpoints).
 */
export const requireProjectAccess = (project: string, editor: ProjectEditor) =>
  editor.isAdmin ? Effect.void : requireGranted(project, editor)
