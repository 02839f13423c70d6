import { Effect } from "effect"
import { CurrentUser } from "../user/CurrentUser.ts"
import { ProjectForbidden } from "./ProjectErrors.ts"

/** Who asks, for the project access checks every project-scoped endpoint applies: only granted projects are read or written. */
export interface ProjectCaller {
  readonly login: string
  readonly grantedProjects: ReadonlyArray<string>
}

/** A caller who may also change projects, as administrators may. */
export interface ProjectEditor extends ProjectCaller {
  readonly isAdmin: boolean
}

/** The caller as the project-scoped services check it: login, granted projects and admin role. */
export const projectCaller = Effect.gen(function* () {
  const current = yield* CurrentUser
  return { login: current.user.id, grantedProjects: yield* current.grantedProjects, isAdmin: current.isAdmin } satisfies ProjectEditor
})

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
