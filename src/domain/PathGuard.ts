import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Data, Effect, Either } from "effect"

/**
 * The one answer to "is this path inside that folder": the data folder of scans and the tree, the plugins folder
 * and webRoot of served files, archive members being unpacked, a project's source folder. Folders and paths are
 * compared by whole segments (/data2 is not in /data), after `..` is resolved, and, where the files exist, once
 * symbolic links are resolved too.
 */

/** A path that leaves its folder: through `..`, as an absolute path elsewhere, or through a symbolic link. */
export class PathOutside extends Data.TaggedError("PathOutside")<{ readonly path: string; readonly folder: string }> {}

/** A path inside its folder that does not exist, where the caller wants an existing one. */
export class PathMissing extends Data.TaggedError("PathMissing")<{ readonly path: string }> {}

/** An archive member name that cannot name a file below a folder: empty, with a NUL or a backslash, absolute. */
export class PathInvalid extends Data.TaggedError("PathInvalid")<{ readonly path: string }> {}

/** Whether `candidate` is `folder` or below it, both absolute and normalised, compared by whole segments. */
export const isWithin = (folder: string, candidate: string) => {
  const relative = path.relative(folder, candidate)
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
}

/** The path with its links resolved; a missing path is resolved through its nearest existing ancestor. */
export const realPath = (target: string): Effect.Effect<string> =>
  Effect.tryPromise(() => fs.realpath(target)).pipe(
    Effect.orElse(() =>
      path.dirname(target) === target
        ? Effect.succeed(target)
        : Effect.map(realPath(path.dirname(target)), (parent) => path.join(parent, path.basename(target)))
    )
  )

const isMissing = (error: unknown) => {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
  return code === "ENOENT" || code === "ENOTDIR"
}

export interface GuardOptions {
  /**
   * `allowed`: a missing path is judged by its nearest existing ancestor (a folder about to be scanned).
   * `refused`: it fails with PathMissing when inside, PathOutside when its ancestors lead out; a path that cannot be
   * resolved for another reason (permissions, a loop of links) is refused as outside.
   */
  readonly missing: "allowed" | "refused"
}

/** Only the refusals the options make possible, so that callers handle no error that cannot happen. */
type GuardError<O extends GuardOptions> = PathOutside | (O["missing"] extends "refused" ? PathMissing : never)

/**
 * The real path of `requested` (absolute), refused unless it is in `folder` both as written (in the folder as named or
 * as its links resolve it) and once its own links are resolved.
 */
export const guardPath = <const O extends GuardOptions>(folder: string, requested: string, options: O) =>
  check(folder, requested, options) as Effect.Effect<string, GuardError<O>>

const check = (folder: string, requested: string, options: GuardOptions) =>
  Effect.gen(function* () {
    const root = path.resolve(folder)
    const target = path.resolve(requested)
    const realRoot = yield* realPath(root)
    const outside = new PathOutside({ path: target, folder: root })
    if (!isWithin(root, target) && !isWithin(realRoot, target)) return yield* outside
    const resolved = yield* Effect.tryPromise(() => fs.realpath(target)).pipe(
      Effect.catchAll(({ error }) => {
        if (options.missing === "allowed") return realPath(target)
        if (!isMissing(error)) return Effect.fail(outside)
        return Effect.flatMap(realPath(target), (real) =>
          Effect.fail(isWithin(realRoot, real) ? new PathMissing({ path: target }) : outside)
        )
      })
    )
    if (!isWithin(realRoot, resolved)) return yield* outside
    return resolved
  })

/**
 * Where an archive member named `name` goes below `folder`, judged on the name alone since the file does not exist
 * yet: absolute names, `..` segments, backslashes (a separator elsewhere) and NUL bytes are refused (zip-slip), and
 * so is a name that is the folder itself.
 */
export const memberPath = (folder: string, name: string): Either.Either<string, PathInvalid | PathOutside> => {
  if (name === "" || name.includes("\0") || name.includes("\\") || path.posix.isAbsolute(name))
    return Either.left(new PathInvalid({ path: name }))
  const root = path.resolve(folder)
  const target = path.resolve(root, name)
  if (name.split("/").includes("..") || target === root || !isWithin(root, target))
    return Either.left(new PathOutside({ path: name, folder: root }))
  return Either.right(target)
}
