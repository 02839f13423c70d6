import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Option } from "effect"
import { Settings } from "../../config/Settings.ts"
import { contentTypeOf, injectAssets, pluginAssets } from "../../domain/plugin/PluginPage.ts"
import { NotFound, pathParam, stream, text } from "../Http.ts"
import { CurrentUser } from "../middleware/Auth.ts"
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

/** The page, with the tags of the plugins installed now when pluginsDir is set (plugins come and go at run time). */
const rootPage = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.pluginsDir === undefined) return text(indexPage, htmlContentType, 200, pageHeaders)
  const user = yield* CurrentUser
  const page = injectAssets(indexPage, yield* pluginAssets(settings.pluginsDir, user.grantedProjects))
  return text(page, htmlContentType, 200, pageHeaders)
})

/** Built file names are one path segment of word characters, dots and dashes: nothing can leave assets/. */
const assetName = /^[\w-]+(\.[\w-]+)+$/

const webAsset = Effect.gen(function* () {
  const notFound = new NotFound({ message: "Not found" })
  const name = yield* pathParam("name")
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
    summary: "The web page, with a script tag (and a style sheet link) per installed plugin when pluginsDir is set",
    tag: "application",
    responseContentType: htmlContentType
  }),
  publicRoute<never>("GET", "/assets/:name", webAsset, {
    summary: "A content-hashed script or style sheet of the web page, cached for a year; 404 for anything else",
    tag: "application"
  })
]
