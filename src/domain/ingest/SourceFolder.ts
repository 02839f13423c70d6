import * as path from "node:path"
import { Effect, Option } from "effect"
import { isWithin, realPath } from "../PathGuard.ts"
import { ProjectForbidden } from "../project/ProjectErrors.ts"
import { Projects } from "../project/Projects.ts"

/**
 * The folder a scan of `directory` into `project` must stay in, links followed included: the data folder for
 * administrators; for other users the project's source folder, which `directory` must be in (403 otherwise, and for a
 * project without a stored source folder), so that nobody indexes another user's folder into a project of theirs.
 */
export const scanBoundary = Effect.fn("SourceFolder.scanBoundary")(function* (
  directory: string,
  project: string,
  caller: { readonly isAdmin: boolean; readonly dataDir: string }
) {
  const dataDir = yield* realPath(path.resolve(caller.dataDir))
  if (caller.isAdmin) return dataDir
  const sourcePath = yield* (yield* Projects).sourceFolder(project)
  if (Option.isNone(sourcePath)) return yield* new ProjectForbidden({ project, reason: `project ${project} has no source folder to scan` })
  const boundary = yield* realPath(sourcePath.value)
  // A source folder is in the data folder when created; one whose links now lead out of it is no boundary.
  if (!isWithin(dataDir, boundary) || !isWithin(boundary, yield* realPath(directory))) {
    return yield* new ProjectForbidden({ project, reason: `${directory} is not in the source folder of project ${project}` })
  }
  return boundary
})
