import * as fs from "node:fs"
import { Effect, Option, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { type DeliverableKind, DeliverablePackage } from "../../domain/plugin/Deliverable.ts"
import { Deliverables } from "../../domain/plugin/Deliverables.ts"
import { contentTypeOf, fileWithin, pluginsUrlPrefix } from "../../domain/plugin/PluginPage.ts"
import { allowMethods, empty, json, pathParam, queryParam, stream } from "../../transport/Http.ts"
import { Forbidden, NotFound } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"

const installErrors =
  "400 without id nor url; 404 for an id not in the registry or a URL answering 404; 422 when the download is too " +
  "large, not the archive expected, or holds a path leaving the target folder; 502 when the host is unreachable or " +
  "answers an error; 504 when the download takes too long. Nothing is left half-installed."

/**
 * Plugins are scripts every user's page loads and extensions run on the server, so in SERVER mode only
 * administrators change them (the reference lets any user); in LOCAL mode the one user is the administrator.
 */
const requireAdmin = Effect.flatMap(CurrentUser, (user) =>
  user.isAdmin ? Effect.void : Effect.fail(new Forbidden({ message: "only administrators may install or remove plugins and extensions" }))
)

/** The listing, install and uninstall endpoints of one kind, the same for plugins and extensions. */
const deliverableRoutes = (kind: DeliverableKind, base: string, folder: string) => [
  route(
    "GET",
    base,
    Effect.gen(function* () {
      const deliverables = yield* Deliverables
      return json(yield* deliverables.list(kind, yield* queryParam("filter")))
    }),
    {
      summary: `The ${kind}s of the registry and those installed in ${folder} (also when not in the registry), sorted by id`,
      tag: `${kind}s`,
      query: {
        filter:
          "pattern found (ignoring case) in the id, name or description, or an installed file name: `|`, `^`, `$`, `.*` and `.` as in a regular expression, everything else literal"
      },
      response: Schema.Array(DeliverablePackage)
    }
  ),
  route("OPTIONS", `${base}/install`, Effect.succeed(allowMethods("OPTIONS, PUT")), { summary: "Preflight: allows PUT", tag: `${kind}s` }),
  route(
    "PUT",
    `${base}/install`,
    Effect.gen(function* () {
      yield* requireAdmin
      const deliverables = yield* Deliverables
      yield* deliverables.install(kind, yield* queryParam("id"), yield* queryParam("url"))
      return empty()
    }),
    {
      summary: `Downloads a ${kind} named by its registry id or by an http(s) URL and installs it in ${folder}, replacing older versions; 403 for a user who is not an administrator; ${installErrors}`,
      tag: `${kind}s`,
      query: { id: "id in the registry", url: "http:// or https:// URL of the package (tried first)" }
    }
  ),
  route("OPTIONS", `${base}/uninstall`, Effect.succeed(allowMethods("OPTIONS, DELETE")), {
    summary: "Preflight: allows DELETE",
    tag: `${kind}s`
  }),
  route(
    "DELETE",
    `${base}/uninstall`,
    Effect.gen(function* () {
      yield* requireAdmin
      const deliverables = yield* Deliverables
      yield* deliverables.uninstall(kind, yield* queryParam("id"))
      return empty(204)
    }),
    {
      summary: `Removes every installed version of a ${kind}; 204 also when it is not installed, 400 without id, 403 for a user who is not an administrator, 500 on a filesystem error`,
      tag: `${kind}s`,
      query: { id: "id of the package, or the URL it was installed from" },
      responseStatus: 204
    }
  )
]

/** The files of installed plugins, for the script and link tags of the index page; only when pluginsDir is set. */
const servePluginFile = Effect.gen(function* () {
  const settings = yield* Settings
  const notFound = new NotFound({ message: "Not found" })
  if (settings.pluginsDir === undefined) return yield* notFound
  const file = yield* fileWithin(settings.pluginsDir, yield* pathParam("path"))
  if (Option.isNone(file)) return yield* notFound
  return stream(fs.createReadStream(file.value.path), contentTypeOf(file.value.path), { "Content-Length": String(file.value.size) })
})

export const pluginRoutes = [
  ...deliverableRoutes("plugin", "/api/plugins", "pluginsDir"),
  ...deliverableRoutes("extension", "/api/extensions", "extensionsDir"),
  publicRoute("GET", `${pluginsUrlPrefix}/:path:`, servePluginFile, {
    summary: "A file of an installed plugin (when pluginsDir is set); 404 for anything else",
    tag: "plugins"
  })
]
