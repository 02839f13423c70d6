import * as fs from "node:fs/promises"
import { Effect } from "effect"
import { Settings } from "../../config/Settings.ts"
import { injectAssets, pluginAssets } from "../../domain/plugin/PluginPage.ts"
import { text } from "../Http.ts"
import { CurrentUser } from "../middleware/Auth.ts"
import { publicRoute } from "../Router.ts"

// Read once when the server starts: the page is part of the installation and does not change while it runs.
const indexPage = await fs.readFile(new URL("../../web/index.html", import.meta.url), "utf8")

const htmlContentType = "text/html;charset=UTF-8"

/** The page, with the tags of the plugins installed now when pluginsDir is set (plugins come and go at run time). */
const rootPage = Effect.gen(function* () {
  const settings = yield* Settings
  if (settings.pluginsDir === undefined) return text(indexPage, htmlContentType)
  const user = yield* CurrentUser
  return text(injectAssets(indexPage, yield* pluginAssets(settings.pluginsDir, user.grantedProjects)), htmlContentType)
})

export const rootRoutes = [
  publicRoute("GET", "/", rootPage, {
    summary: "The front-end index page, with a script tag (and a style sheet link) per installed plugin when pluginsDir is set",
    tag: "application",
    responseContentType: htmlContentType
  })
]
