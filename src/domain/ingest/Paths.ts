import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"

/** Whether `candidate` is `root` or below it, compared by whole path segments (/data2 is not under /data). */
export const isWithin = (root: string, candidate: string) => {
  const relative = path.relative(root, candidate)
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
}

/** The path with its links resolved; a missing path is resolved through its nearest existing ancestor. */
export const realPath = (target: string): Effect.Effect<string> =>
  Effect.tryPromise(() => fs.realpath(target)).pipe(
    Effect.orElse(() => (path.dirname(target) === target ? Effect.succeed(target) : Effect.map(realPath(path.dirname(target)), (parent) => path.join(parent, path.basename(target)))))
  )
