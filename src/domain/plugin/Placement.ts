import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { describe } from "../../extract/ExtractErrors.ts"
import type { InstalledItem } from "./Deliverable.ts"
import { DeliverableFilesystemError } from "./DeliverableErrors.ts"

/**
 * Moving packages in and out of the plugins and extensions folders without ever leaving one half there.
 * Everything is prepared in a hidden staging folder inside the target folder (same filesystem, so that a
 * rename is atomic); older versions are renamed into the staging folder, the new one is renamed into place,
 * and the staging folder, with the old versions, is removed at the end whatever happened.
 */

const fsCall = <A>(action: string, call: () => Promise<A>) =>
  Effect.tryPromise({ try: call, catch: (error) => new DeliverableFilesystemError({ action, reason: describe(error) }) })

/** Runs `use` with a fresh staging folder inside `dir`, removed afterwards, whether `use` succeeds or not. */
export const withStaging = <A, E, R>(dir: string, prefix: string, use: (staging: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    fsCall(`write to ${dir}`, async () => {
      await fs.mkdir(dir, { recursive: true })
      return fs.mkdtemp(path.join(dir, prefix))
    }),
    use,
    (staging) =>
      fsCall(`remove ${staging}`, () => fs.rm(staging, { recursive: true, force: true })).pipe(
        Effect.catchAll((error) => Effect.logWarning(error.message))
      )
  )

/** Renames the items into `staging/replaced`, answering how to put them back. */
const moveAside = (dir: string, items: ReadonlyArray<InstalledItem>, staging: string) =>
  Effect.gen(function* () {
    const aside = path.join(staging, "replaced")
    yield* fsCall(`write to ${staging}`, () => fs.mkdir(aside, { recursive: true }))
    const moved: Array<readonly [string, string]> = []
    const restore = Effect.forEach(moved, ([from, to]) => fsCall(`restore ${from}`, () => fs.rename(to, from)).pipe(Effect.ignore))
    for (const item of items) {
      const from = path.join(dir, item.fileName)
      const to = path.join(aside, item.fileName)
      yield* fsCall(`move ${from} aside`, () => fs.rename(from, to)).pipe(Effect.tapError(() => restore))
      moved.push([from, to])
    }
    return restore
  })

/**
 * Puts `prepared` (a directory or file inside `staging`) in `dir` under `name`, replacing `older` (the
 * installed versions of the same package, possibly including `name` itself). When the final rename fails,
 * the older versions are put back.
 */
export const placeReplacing = (dir: string, name: string, prepared: string, older: ReadonlyArray<InstalledItem>, staging: string) =>
  Effect.gen(function* () {
    const restore = yield* moveAside(dir, older, staging)
    const target = path.join(dir, name)
    yield* fsCall(`install ${target}`, () => fs.rename(prepared, target)).pipe(Effect.tapError(() => restore))
  })

/** Removes the items from `dir`: each disappears at once (renamed away), then is deleted with the staging folder. */
export const removeItems = (dir: string, items: ReadonlyArray<InstalledItem>) =>
  items.length === 0 ? Effect.void : withStaging(dir, ".removing-", (staging) => Effect.asVoid(moveAside(dir, items, staging)))

/** The root of an unpacked plugin: the archive's only top-level directory (`package/` of npm), else the whole. */
export const packageRoot = (content: string) =>
  fsCall(`read ${content}`, () => fs.readdir(content, { withFileTypes: true })).pipe(
    Effect.map((entries) => {
      const only = entries.length === 1 ? entries[0] : undefined
      return { empty: entries.length === 0, root: only !== undefined && only.isDirectory() ? path.join(content, only.name) : content }
    })
  )
