import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Option } from "effect"
import { Settings } from "../../config/Settings.ts"
import { contentTypeOf, fileWithin, injectAssets, pluginAssets } from "../../domain/plugin/PluginPage.ts"
import { type HttpResponse, pathParam, stream, text } from "../../transport/Http.ts"
import { NotFound } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute } from "../Router.ts"

/** Where `npm run build:web` (Vite) writes the web page: index.html and its content-hashed files under assets/. */
const webDir = fileURLToPath(new URL("../../../dist/web/", import.meta.url))

/** Served when the web page was never built, so that the API still works from a bare checkout. */
const unbuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarry</title></head>
<body><main><h1>Quarry</h1><p>The web page is not built: run <code>npm run build:web</code>. The API is described at <a href="/api/openapi">/api/openapi</a>.</p></main></body></html>
`

// Read once when the server starts: the page is part of the installation and does not change while it runs.
const indexPage = await fs.readFile(path.join(webDir, "index.html"), "utf8").catch(() => unbuiltPage)

const htmlContentType = "text/html;charset=UTF-8"

/**
 * The page loads only its own files (its built scripts and styles, plugins under /plugins/, the API); no inline
 * script or style, no plugin objects, and no other site may frame it (clickjacking). `data:` images are CSS icons.
 */
const pagePolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; " +
  "base-uri 'self'; form-action 'self'; frame-ancestors 'self'"

// The page names its scripts by content hash: it must be revalidated, while the hashed files never change.
const pageHeaders = { "Cache-Control": "no-cache", "Content-Security-Policy": pagePolicy, "X-Content-Type-Options": "nosniff" }
const assetHeaders = { "Cache-Control": "public, max-age=31536000, immutable" }

/** Quarry's page, with the tags of the plugins installed now when pluginsDir is set (plugins come and go at run time). */
const quarryPage = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.pluginsDir === undefined) return text(indexPage, htmlContentType, 200, pageHeaders)
  const user = yield* CurrentUser
  const page = injectAssets(indexPage, yield* pluginAssets(settings.pluginsDir, user.grantedProjects))
  return text(page, htmlContentType, 200, pageHeaders)
})

/**
 * Whether a built file's name holds a content hash (`index-4f3a9c1b.js`, `app.1e2d3c4b.css`): a part of eight or
 * more letters and digits, one of them a digit, between dots or dashes before the extension.
 */
const isContentHashed = (file: string) =>
  path
    .basename(file)
    .split(".")
    .slice(0, -1)
    .flatMap((part) => part.split("-"))
    .some((part) => part.length >= 8 && /^\w+$/.test(part) && /\d/.test(part))

/**
 * A file of the front end in webRoot: its content type, and cache headers that make browsers revalidate pages and
 * unhashed files (they change with each build) while keeping content-hashed ones.
 */
const webRootFile = (webRoot: string, relative: string) =>
  Effect.gen(function* () {
    const file = yield* fileWithin(webRoot, relative)
    if (Option.isNone(file)) return yield* new NotFound({ message: "Not found" })
    const cache = isContentHashed(file.value.path) ? assetHeaders : { "Cache-Control": "no-cache" }
    return stream(createReadStream(file.value.path), contentTypeOf(file.value.path), {
      ...cache,
      "Content-Length": String(file.value.size),
      "X-Content-Type-Options": "nosniff"
    }) satisfies HttpResponse
  })

/** `/`: the front end of webRoot when set (its own page, under its own policy), else Quarry's page. */
const rootPage = Effect.gen(function* () {
  const settings = yield* Settings
  return yield* settings.webRoot === undefined ? quarryPage : webRootFile(settings.webRoot, "index.html")
})

/**
 * Any other GET path no API route answers: a file of webRoot. Added to the routes last, only when webRoot is set,
 * so that every API route keeps precedence.
 */
const webRootPath = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.webRoot === undefined) return yield* new NotFound({ message: "Not found" })
  return yield* webRootFile(settings.webRoot, yield* pathParam("path"))
})

export const webRootRoute = publicRoute("GET", "/:path:", webRootPath, {
  summary:
    "With webRoot set: a file of the front end served from it, with its content type; 404 for a missing file or a path leaving the folder",
  tag: "application"
})

/** Built file names are one path segment of word characters, dots and dashes: nothing can leave assets/. */
const assetName = /^[\w-]+(\.[\w-]+)+$/

const webAsset = Effect.gen(function* () {
  const notFound = new NotFound({ message: "Not found" })
  const name = yield* pathParam("name")
  // A front end in webRoot may have its own assets/ (Vite builds put their files there); Quarry's page still loads its own.
  const settings = yield* Settings
  if (settings.webRoot !== undefined) {
    const own = yield* Effect.option(webRootFile(settings.webRoot, `assets/${name}`))
    if (Option.isSome(own)) return own.value
  }
  if (!assetName.test(name)) return yield* notFound
  const file = path.join(webDir, "assets", name)
  const size = yield* Effect.tryPromise(() => fs.stat(file)).pipe(
    Effect.map((stats) => (stats.isFile() ? Option.some(stats.size) : Option.none())),
    Effect.orElseSucceed(() => Option.none<number>())
  )
  if (Option.isNone(size)) return yield* notFound
  return stream(createReadStream(file), contentTypeOf(file), { ...assetHeaders, "Content-Length": String(size.value) })
})

export const rootRoutes = [
  publicRoute("GET", "/", rootPage, {
    summary:
      "The web page, with a script tag (and a style sheet link) per installed plugin when pluginsDir is set; the index.html of webRoot when set",
    tag: "application",
    responseContentType: htmlContentType
  }),
  publicRoute("GET", "/login", quarryPage, {
    summary: "Quarry's own page and its sign-in form, also when webRoot serves another front end at / (the review front end's loginUrl)",
    tag: "application",
    responseContentType: htmlContentType
  }),
  publicRoute("GET", "/assets/:name", webAsset, {
    summary:
      "A content-hashed script or style sheet of the web page (of webRoot's front end first, when set), cached for a year; 404 for anything else",
    tag: "application"
  })
]
