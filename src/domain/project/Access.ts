import { Effect } from "effect"
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
