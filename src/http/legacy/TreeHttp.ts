import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { guardPath } from "../../domain/PathGuard.ts"
import { allowMethods, json, pathParam, queryParam } from "../../transport/Http.ts"
import { BadRequest, Forbidden, NotFound } from "../../domain/RequestErrors.ts"
import { route } from "../Router.ts"

/** One entry of a listing, in the JSON layout of the UNIX `tree -J` command. */
export interface TreeEntry {
  readonly type: "directory" | "file" | "link"
  /** The full path, without a trailing slash. */
  readonly name: string
  /** The type character then the permissions, as `ls -l` shows them (`drwxr-xr-x`). */
  readonly prot: string
  readonly size: number
  readonly target?: string
  readonly contents?: ReadonlyArray<TreeEntry>
}

const TreeEntrySchema: Schema.Schema<TreeEntry> = Schema.Struct({
  type: Schema.Literal("directory", "file", "link"),
  name: Schema.String,
  prot: Schema.String,
  size: Schema.Number,
  target: Schema.optionalWith(Schema.String, { exact: true }),
  contents: Schema.optionalWith(Schema.Array(Schema.suspend(() => TreeEntrySchema)), { exact: true })
}).annotations({ identifier: "TreeEntry" })

const typeChar = (stats: Stats) =>
  stats.isDirectory()
    ? "d"
    : stats.isSymbolicLink()
      ? "l"
      : stats.isFIFO()
        ? "p"
        : stats.isSocket()
          ? "s"
          : stats.isCharacterDevice()
            ? "c"
            : stats.isBlockDevice()
              ? "b"
              : "-"

const permissions = (mode: number) =>
  ["r", "w", "x", "r", "w", "x", "r", "w", "x"].map((flag, bit) => (mode & (0o400 >> bit) ? flag : "-")).join("")

const describe = (name: string, stats: Stats) => ({
  type: stats.isDirectory() ? ("directory" as const) : stats.isSymbolicLink() ? ("link" as const) : ("file" as const),
  name,
  prot: typeChar(stats) + permissions(stats.mode),
  size: stats.size
})

const fsCall = <A>(call: () => Promise<A>) => Effect.tryPromise({ try: call, catch: (error) => error as NodeJS.ErrnoException })

// Bounds the open file handles of one listing.
const statConcurrency = 16

/**
 * The entries of `dir` (read at `realDir`, named under `dir`), sorted by path. Entries are read with lstat so
 * that a symbolic link is listed as a link and never followed out of the data folder. Sub-directories are
 * listed while `levels` remain; at the last level, and when unreadable, they have empty contents.
 */
const listDirectory = (dir: string, realDir: string, levels: number): Effect.Effect<ReadonlyArray<TreeEntry>> =>
  fsCall(() => fs.readdir(realDir)).pipe(
    Effect.orElseSucceed((): ReadonlyArray<string> => []),
    Effect.flatMap((names) =>
      Effect.forEach(
        [...names].sort(),
        (childName) =>
          fsCall(() => fs.lstat(path.join(realDir, childName))).pipe(
            Effect.flatMap((stats): Effect.Effect<TreeEntry, NodeJS.ErrnoException> => {
              const entry = describe(path.join(dir, childName), stats)
              if (stats.isSymbolicLink()) {
                return fsCall(() => fs.readlink(path.join(realDir, childName))).pipe(Effect.map((target) => ({ ...entry, target })))
              }
              if (!stats.isDirectory()) return Effect.succeed(entry)
              const contents = levels > 1 ? listDirectory(entry.name, path.join(realDir, childName), levels - 1) : Effect.succeed([])
              return Effect.map(contents, (children) => ({ ...entry, contents: children }))
            }),
            // An entry removed while listing is left out rather than failing the whole listing.
            Effect.option
          ),
        { concurrency: statConcurrency }
      )
    ),
    Effect.map((entries) => entries.flatMap((entry) => (entry._tag === "Some" ? [entry.value] : [])))
  )

const forbidden = (requested: string) => new Forbidden({ message: `${requested} is not in the data folder` })

/**
 * Checks and lists a directory for GET /api/tree. The requested path is normalised first, so `..` (raw or
 * percent-encoded) and encoded slashes are resolved before the data-folder check, and the check is repeated on
 * the real path so that a symbolic link cannot lead out of the data folder.
 */
const tree = Effect.fn("Tree.list")(function* (dataDir: string, dirPath: string, levels: number) {
  if (dirPath.includes("\0")) return yield* new BadRequest({ message: "invalid path" })
  const requested = path.resolve(path.sep, dirPath)
  const real = yield* guardPath(dataDir, requested, { missing: "refused" }).pipe(
    Effect.catchTags({
      PathMissing: () => Effect.fail(new NotFound({ message: `${requested} does not exist` })),
      PathOutside: () => Effect.fail(forbidden(requested))
    })
  )
  const stats = yield* fsCall(() => fs.stat(real)).pipe(Effect.mapError(() => forbidden(requested)))
  if (!stats.isDirectory()) return yield* new BadRequest({ message: `${requested} is not a directory` })
  const contents = yield* listDirectory(requested, real, levels)
  return { ...describe(requested, stats), contents }
})

const parseDepth = (value: string | undefined) =>
  value === undefined || value === ""
    ? Effect.succeed(0)
    : /^-?\d+$/.test(value)
      ? Effect.succeed(Number(value))
      : Effect.fail(new BadRequest({ message: `depth must be an integer, not ${JSON.stringify(value)}` }))

/** The tree lets the local user browse their own disk, so a SERVER exposes no such route. */
const localOnly = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.mode !== "LOCAL") return yield* new NotFound({ message: "Not found" })
  return settings
})

export const treeRoutes = [
  route(
    "GET",
    "/api/tree/:dirPath:",
    Effect.gen(function* () {
      const settings = yield* localOnly
      const depth = yield* parseDepth(yield* queryParam("depth"))
      // depth 0 and 1 both list one level, like the reference.
      return json(yield* tree(settings.dataDir, yield* pathParam("dirPath"), Math.max(1, depth)))
    }),
    {
      summary:
        "Files and directories of a directory of the data folder, in the JSON layout of `tree -J` (LOCAL mode only); " +
        "404 when missing, 400 when not a directory, 403 outside the data folder",
      tag: "tree",
      query: { depth: "levels to list; 0 and 1 list one level (default 0)" },
      response: TreeEntrySchema
    }
  ),
  route("OPTIONS", "/api/tree/:dirPath:", Effect.as(localOnly, allowMethods("OPTIONS, GET")), {
    summary: "Preflight of the tree listing",
    tag: "tree"
  })
]
