import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect, Option, Schema } from "effect"
import { describe } from "../../extract/ExtractErrors.ts"
import { guardPath } from "../PathGuard.ts"
import { isHidden } from "./Installed.ts"

/** Plugin files are served under this path, each plugin under its directory's name. */
export const pluginsUrlPrefix = "/plugins"

/** The parts of a plugin's package.json that decide what the index page loads. */
const PluginPackage = Schema.Struct({
  main: Schema.optional(Schema.String),
  style: Schema.optional(Schema.String),
  private: Schema.optional(Schema.Union(Schema.Boolean, Schema.String)),
  datashare: Schema.optional(Schema.Struct({ projects: Schema.optional(Schema.Array(Schema.String)) }))
})
type PluginPackage = typeof PluginPackage.Type

/** The scripts and style sheets the installed plugins add to the index page, as URLs. */
export interface PluginAssets {
  readonly scripts: ReadonlyArray<string>
  readonly styles: ReadonlyArray<string>
}

const isFile = (file: string) =>
  Effect.promise(() =>
    fs.stat(file).then(
      (stats) => stats.isFile(),
      () => false
    )
  )

/** `/plugins/<dir>/<file>` for a file named relative to its plugin's directory; none when it would leave it. */
const assetUrl = (dir: string, file: string): Option.Option<string> => {
  const relative = path.posix.normalize(file).replace(/^\.\//, "")
  if (relative === "." || relative.startsWith("../") || path.posix.isAbsolute(relative) || relative.includes("\0")) return Option.none()
  return Option.some(`${pluginsUrlPrefix}/${[dir, ...relative.split("/")].map(encodeURIComponent).join("/")}`)
}

/** package.json of a plugin directory; none when absent, and none with a warning when unreadable. */
const readPackage = (pluginDir: string) =>
  Effect.tryPromise(() => fs.readFile(path.join(pluginDir, "package.json"), "utf8")).pipe(
    Effect.option,
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(Option.none<PluginPackage>()),
        onSome: (text) =>
          Schema.decodeUnknown(Schema.parseJson(PluginPackage))(text).pipe(
            Effect.map(Option.some),
            Effect.catchAll((error) =>
              Effect.as(
                Effect.logWarning(`plugin ${pluginDir} skipped: its package.json is not usable`, error.message),
                Option.none<PluginPackage>()
              )
            )
          )
      })
    )
  )

const isPrivate = (pkg: PluginPackage) => pkg.private === true || pkg.private === "true"

/**
 * The assets of every plugin directory, in name order: `main` of its package.json as a script (or `index.js`
 * when it has no package.json) and `style` as a style sheet. A private package is loaded only for users of one
 * of its `datashare.projects`; `projects` is read only when such a plugin exists. An unreadable plugins folder
 * adds nothing (the page still loads) and is logged.
 */
export const pluginAssets = <E, R>(pluginsDir: string, projects: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  Effect.gen(function* () {
    const entries = yield* Effect.tryPromise(() => fs.readdir(pluginsDir, { withFileTypes: true })).pipe(
      Effect.catchAll((error) => Effect.as(Effect.logWarning(`plugins folder ${pluginsDir} unreadable: ${describe(error.error)}`), []))
    )
    const userProjects = yield* Effect.cached(projects)
    const scripts: Array<string> = []
    const styles: Array<string> = []
    const dirs = entries.filter((entry) => entry.isDirectory() && !isHidden(entry.name)).map((entry) => entry.name)
    for (const dir of dirs.sort()) {
      const pluginDir = path.join(pluginsDir, dir)
      const pkg = yield* readPackage(pluginDir)
      if (Option.isNone(pkg)) {
        if (yield* isFile(path.join(pluginDir, "index.js"))) scripts.push(...Option.toArray(assetUrl(dir, "index.js")))
        continue
      }
      const { main, style, datashare } = pkg.value
      if (isPrivate(pkg.value)) {
        const allowed = datashare?.projects ?? []
        if (!(yield* userProjects).some((project) => allowed.includes(project))) continue
      }
      if (main !== undefined) scripts.push(...Option.toArray(assetUrl(dir, main)))
      if (style !== undefined) styles.push(...Option.toArray(assetUrl(dir, style)))
    }
    return { scripts, styles } satisfies PluginAssets
  })

/** The index page with the plugins' style sheets before `</head>` and their scripts before `</body>`. */
export const injectAssets = (page: string, assets: PluginAssets) =>
  page
    .replace("</head>", `${assets.styles.map((url) => `<link rel="stylesheet" href="${url}">`).join("")}</head>`)
    .replace("</body>", `${assets.scripts.map((url) => `<script src="${url}"></script>`).join("")}</body>`)

const contentTypes: Readonly<Record<string, string>> = {
  ".js": "application/javascript;charset=UTF-8",
  ".mjs": "application/javascript;charset=UTF-8",
  ".css": "text/css;charset=UTF-8",
  ".json": "application/json;charset=UTF-8",
  ".map": "application/json;charset=UTF-8",
  ".html": "text/html;charset=UTF-8",
  ".txt": "text/plain;charset=UTF-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".eot": "application/vnd.ms-fontobject",
  ".webp": "image/webp",
  ".wasm": "application/wasm",
  ".webmanifest": "application/manifest+json",
  ".pdf": "application/pdf"
}

export const contentTypeOf = (file: string) => contentTypes[path.extname(file).toLowerCase()] ?? "application/octet-stream"

/**
 * The file a request names below a served folder (`/plugins/...` in pluginsDir, a front end in webRoot), or none:
 * hidden segments (install staging, dot files, `..`), paths that leave the folder (also through symbolic links) and
 * anything but regular files are not served.
 */
export const fileWithin = (folder: string, relative: string) =>
  Effect.gen(function* () {
    const segments = relative.split("/").filter((segment) => segment !== "")
    if (segments.length === 0 || relative.includes("\0") || segments.some((segment) => isHidden(segment) || segment.includes("\\"))) {
      return Option.none()
    }
    const lookup = Effect.gen(function* () {
      const real = yield* guardPath(folder, path.join(path.resolve(folder), ...segments), { missing: "refused" })
      const stats = yield* Effect.tryPromise(() => fs.stat(real))
      return stats.isFile() ? Option.some({ path: real, size: stats.size }) : Option.none()
    })
    return yield* lookup.pipe(Effect.orElseSucceed(() => Option.none<{ path: string; size: number }>()))
  })
