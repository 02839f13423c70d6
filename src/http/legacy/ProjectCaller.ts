import { Effect } from "effect"
import type { ProjectEditor } from "../../domain/project/Projects.ts"
import { CurrentUser } from "../middleware/Auth.ts"

/** The caller as the project-scoped services check it: login, granted projects and admin role. */
export const projectCaller = Effect.gen(function* () {
  const current = yield* CurrentUser
  return { login: current.user.id, grantedProjects: yield* current.grantedProjects, isAdmin: current.isAdmin } satisfies ProjectEditor
})
