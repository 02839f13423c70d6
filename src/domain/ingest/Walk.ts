import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import type { ScanOptions } from "./IngestOptions.ts"
import { isWithin } from "../PathGuard.ts"

/** Files operating systems leave in folders; never documents. */
const osFileNames = new Set([
  ".ds_store",
  "thumbs.db",
  "ehthumbs.db",
  "desktop.ini",
  ".localized",
  "icon\r",
  ".spotlight-v100",
  ".trashes",
  ".fseventsd",
  "$recycle.bin",
  "system volume information"
])

export const isOsFile = (name: string) => osFileNames.has(name.toLowerCase()) || name.startsWith("._")

const escapeRegExp = (text: string) => text.replace(/[.+^${}()|\\]/g, "\\$&")

/**
 * A glob as a regular expression: `**` crosses directories, `*` and `?` do not, `[...]` and `{a,b}` as in
 * shells. A `glob:` prefix (the reference's PathMatcher syntax) is accepted.
 */
export const globToRegExp = (glob: string): RegExp => {
  const source = glob.replace(/^glob:/, "")
  let out = ""
  let braces = 0
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!
    if (char === "*" && source[i + 1] === "*") {
      // `**/` also matches no directory at all.
      const slash = source[i + 2] === "/"
      out += slash ? "(?:.*/)?" : ".*"
      i += slash ? 2 : 1
    } else if (char === "*") out += "[^/]*"
    else if (char === "?") out += "[^/]"
    else if (char === "[") {
      const end = source.indexOf("]", i + 1)
      if (end < 0) out += "\\["
      else {
        out += `[${source
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`
        i = end
      }
    } else if (char === "{") {
      braces++
      out += "(?:"
    } else if (char === "}" && braces > 0) {
      braces--
      out += ")"
    } else if (char === "," && braces > 0) out += "|"
    else out += escapeRegExp(char)
  }
  return new RegExp(`^${out}$`)
}

/**
 * Whether a file matches a glob: a pattern without `/` is matched against the file name, one with `/` against
 * the absolute path and against the path relative to the scanned directory.
 */
export const globMatcher = (glob: string, root: string) => {
  const pattern = globToRegExp(glob)
  const byName = !glob.replace(/^glob:/, "").includes("/")
  return (file: string) =>
    byName ? pattern.test(path.basename(file)) : pattern.test(file) || pattern.test(path.relative(root, file).split(path.sep).join("/"))
}

export interface WalkHandlers {
  /** Called with each batch of files found, in order; the walk waits for it. */
  readonly onFiles: (files: ReadonlyArray<string>) => Effect.Effect<void, unknown>
  /** Called after each entry of the start directory, with the fraction of them done. */
  readonly onProgress: (fraction: number) => Effect.Effect<void>
}

const tryFs = <A>(call: () => Promise<A>) => Effect.tryPromise({ try: call, catch: (error) => error as NodeJS.ErrnoException })

/**
 * Walks `root` with the scanner's filters, handing files over in batches of `batchSize`. Answers the number of
 * files found; 0 when `root` does not exist. Unreadable directories are logged and skipped. Followed links that
 * resolve outside `boundary` (a real path) are skipped, not followed.
 */
export const walk = (root: string, options: ScanOptions, batchSize: number, handlers: WalkHandlers, boundary?: string) =>
  Effect.gen(function* () {
    const include = options.includePattern === undefined ? () => true : globMatcher(options.includePattern, root)
    const exclude = options.excludePattern === undefined ? () => false : globMatcher(options.excludePattern, root)
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY
    // Real paths of the directories entered, so that followed links cannot loop.
    const visited = new Set<string>()
    let pending: Array<string> = []
    let found = 0

    const flush = Effect.suspend(() => {
      const files = pending
      pending = []
      return files.length === 0 ? Effect.void : handlers.onFiles(files)
    })
    const addFile = (file: string) =>
      Effect.suspend(() => {
        if (!include(file) || exclude(file)) return Effect.void
        pending.push(file)
        found++
        return pending.length >= batchSize ? flush : Effect.void
      })

    const skipName = (name: string) => (!options.includeOSFiles && isOsFile(name)) || (!options.includeHiddenFiles && name.startsWith("."))

    /** What an entry is once links are resolved (or not followed): a file, a directory, or nothing to scan. */
    const kindOf = (full: string, entry: Dirent) =>
      entry.isSymbolicLink()
        ? options.followSymlinks
          ? followed(full)
          : Effect.succeed("other" as const)
        : Effect.succeed(entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other")

    /** What a link leads to; nothing to scan when it leads out of the boundary (to /etc, another user's folder). */
    const followed = (full: string) =>
      Effect.gen(function* () {
        const target = yield* tryFs(() => fs.realpath(full))
        if (boundary !== undefined && !isWithin(boundary, target)) {
          yield* Effect.logWarning(`scan: ${full} leads out of ${boundary}, not followed`)
          return "other" as const
        }
        const stats = yield* tryFs(() => fs.stat(target))
        return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other"
      }).pipe(Effect.orElseSucceed(() => "other" as const))

    const visit = (dir: string, depth: number, top: boolean): Effect.Effect<void, unknown> =>
      Effect.gen(function* () {
        const real = yield* tryFs(() => fs.realpath(dir)).pipe(Effect.orElseSucceed(() => dir))
        if (visited.has(real)) return
        visited.add(real)
        const entries = yield* tryFs(() => fs.readdir(dir, { withFileTypes: true })).pipe(
          Effect.catchAll((error) => Effect.as(Effect.logWarning(`scan: cannot read ${dir}: ${error.code ?? error.message}`), []))
        )
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        for (const [index, entry] of entries.entries()) {
          if (!skipName(entry.name)) {
            const full = path.join(dir, entry.name)
            const kind = yield* kindOf(full, entry)
            if (kind === "file" && depth <= maxDepth) yield* addFile(full)
            else if (kind === "directory" && depth < maxDepth) yield* visit(full, depth + 1, false)
          }
          if (top) yield* handlers.onProgress((index + 1) / entries.length)
        }
      })

    const start = yield* tryFs(() => fs.stat(root)).pipe(Effect.option)
    if (start._tag === "None") {
      yield* Effect.logWarning(`scan: ${root} does not exist`)
      return 0
    }
    if (start.value.isFile()) yield* addFile(root)
    else yield* visit(root, 1, true)
    yield* flush
    return found
  })
