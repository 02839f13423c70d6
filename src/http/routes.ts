import { apiKeyRoutes } from "./legacy/ApiKeyHttp.ts"
import { authRoutes } from "./legacy/AuthHttp.ts"
import { batchDownloadRoutes } from "./legacy/BatchDownloadHttp.ts"
import { batchSearchRoutes } from "./legacy/BatchSearchHttp.ts"
import { documentRoutes } from "./legacy/DocumentHttp.ts"
import { documentMarksRoutes } from "./legacy/DocumentMarksHttp.ts"
import { indexProxyRoutes } from "./legacy/IndexProxyHttp.ts"
import { indexTaskRoutes } from "./legacy/IndexTaskHttp.ts"
import { languagesRoutes } from "./legacy/LanguagesHttp.ts"
import { namedEntityRoutes } from "./legacy/NamedEntityHttp.ts"
import { nerRoutes } from "./legacy/NerHttp.ts"
import { noteRoutes } from "./legacy/NoteHttp.ts"
import { openApiRoutes } from "./legacy/OpenApiHttp.ts"
import { projectRoutes } from "./legacy/ProjectHttp.ts"
import { pluginRoutes } from "./legacy/PluginHttp.ts"
import { rootRoutes } from "./legacy/RootHttp.ts"
import { settingsRoutes } from "./legacy/SettingsHttp.ts"
import { statusRoutes } from "./legacy/StatusHttp.ts"
import { taskRoutes } from "./legacy/TaskHttp.ts"
import { treeRoutes } from "./legacy/TreeHttp.ts"
import { userRoutes } from "./legacy/UserHttp.ts"
import type { BodyTypes } from "./middleware/BrowserGuard.ts"
import type { DocumentedRoute } from "./OpenApi.ts"
import { reviewRoutes } from "./review/routes.ts"
import { listMaxBodyBytes, type Route, withBodyLimit } from "./Router.ts"

/** The services a list of routes needs; lets groups with different needs share one table. */
type ServicesOf<Routes> = Routes extends ReadonlyArray<Route<infer R>> ? R : never

/** Groups whose bodies list document ids; uploads and the NER text set their own limits on their routes. */
const withIdLists = withBodyLimit(listMaxBodyBytes)

/**
 * Writes whose bodies are not JSON sent as application/json (every other write refuses text/plain and forms with 415):
 * the sign-in form, uploads and raw text, and the JSON the reference's front end sends as text/plain.
 */
export const bodyTypeExceptions: Readonly<Record<string, BodyTypes>> = {
  "POST /auth/signin": "own",
  "POST /api/batch/search/:comaSeparatedProjects": "own",
  "POST /api/ner/findNames/:pipeline": "own",
  "POST /api/:project/documents/batchUpdate/star": "jsonOrText",
  "POST /api/:project/documents/batchUpdate/unstar": "jsonOrText",
  "POST /api/:project/documents/batchUpdate/recommend": "jsonOrText",
  "POST /api/:project/documents/batchUpdate/unrecommend": "jsonOrText",
  "POST /api/:project/documents/batchUpdate/tag": "jsonOrText",
  "POST /api/:project/documents/batchUpdate/untag": "jsonOrText",
  "POST /api/task/batchUpdate/index": "jsonOrText",
  "POST /api/task/batchUpdate/index/file": "jsonOrText",
  "POST /api/task/batchUpdate/index/:filePath:": "jsonOrText",
  "POST /api/task/batchUpdate/scan/:filePath:": "jsonOrText",
  "POST /api/task/findNames/:pipeline": "jsonOrText",
  "PUT /api/users/me/history": "jsonOrText",
  "PUT /api/project/:id": "jsonOrText",
  "POST /api/batch/search/copy/:sourcebatchid": "jsonOrText",
  // Searches and counts only (other POSTs are refused): reads, which a page of another site cannot send with an Origin.
  "POST /api/index/search/:path:": "jsonOrText"
}

const withBodyTypeException = <R>(route: Route<R>): Route<R> => {
  const bodyTypes = bodyTypeExceptions[`${route.method} ${route.path}`]
  return bodyTypes === undefined ? route : { ...route, bodyTypes }
}

/** Every group of routes; each group adds its list here. */
const groups = [
  statusRoutes,
  settingsRoutes,
  apiKeyRoutes,
  authRoutes,
  rootRoutes,
  languagesRoutes,
  treeRoutes,
  taskRoutes,
  indexTaskRoutes,
  documentRoutes,
  indexProxyRoutes.map(withIdLists),
  projectRoutes,
  userRoutes,
  documentMarksRoutes.map(withIdLists),
  noteRoutes,
  batchSearchRoutes,
  batchDownloadRoutes.map(withIdLists),
  namedEntityRoutes,
  nerRoutes,
  pluginRoutes,
  reviewRoutes,
  openApiRoutes((): ReadonlyArray<DocumentedRoute> => allRoutes)
]

/** Every route of the HTTP APIs. */
export const allRoutes: ReadonlyArray<Route<ServicesOf<(typeof groups)[number]>>> = groups
  .flat()
  .map((route: Route<ServicesOf<(typeof groups)[number]>>) => withBodyTypeException(route))
