import * as fs from "node:fs/promises"
import { Effect } from "effect"
import { text } from "../Http.ts"
import { publicRoute } from "../Router.ts"

// Read once when the server starts: the page is part of the installation and does not change while it runs.
const indexPage = await fs.readFile(new URL("../../web/index.html", import.meta.url), "utf8")

export const rootRoutes = [
  publicRoute("GET", "/", Effect.succeed(text(indexPage, "text/html;charset=UTF-8")), {
    summary: "The front-end index page",
    tag: "application",
    responseContentType: "text/html;charset=UTF-8"
  })
]
