import { Effect } from "effect"
import { CurrentUser } from "../user/CurrentUser.ts"
import { ProjectForbidden } from "./ProjectErrors.ts"

/** Who asks, for the project access checks of legacy-api-reference §2.5 (applied to every project-scoped endpoint). */
export interface ProjectCaller {
  readonly login: string
  readonly grantedProjects: ReadonlyArray<string>
}

/** Fails with 403 unless `project` is one of the caller's. */
export const requireGranted = (project: string, caller: ProjectCaller) =>
  caller.grantedProjects.includes(project)
    ? Effect.void
    : Effect.fail(new ProjectForbidden({ project, reason: `no access to project ${project}` }))

/**
 * Tasks and writes go into the project they name: administrators (the LOCAL user among them) may name any project,
 * other users only one of theirs (403).
 */
export const requireWritableProject = (project: string) =>
  Effect.gen(function* () {
    const current = yield* CurrentUser
    if (current.isAdmin) return
    yield* requireGranted(project, { login: current.user.id, grantedProjects: yield* current.grantedProjects })
  })
