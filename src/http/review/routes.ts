import { Effect } from "effect"
import { empty } from "../../transport/Http.ts"
import { publicRoute } from "../Router.ts"
import { activityRoutes } from "./ActivityHttp.ts"
import { assignmentRoutes } from "./AssignmentHttp.ts"
import { contentRoutes } from "./ContentHttp.ts"
import { mediaRoutes } from "./MediaHttp.ts"
import { operationRoutes } from "./OperationsHttp.ts"
import { recordWriteRoutes } from "./RecordWriteHttp.ts"
import { reviewReadRoutes } from "./ReadHttp.ts"
import { reviewBridgeRoutes } from "./ReviewBridgeHttp.ts"
import { reviewWriteRoutes } from "./ReviewWriteHttp.ts"
import { JsonApiError } from "./JsonApiError.ts"
import { jsonApiRoute, withMethodNotAllowed } from "./Route.ts"
import { templateSettingRoutes } from "./TemplateSettingHttp.ts"
import { uploadRoutes } from "./UploadHttp.ts"

/** Any other path under /api/v1/ is a JSON:API 404, not the legacy API's `{"error"}` body. */
const unknownPaths = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((method) =>
  jsonApiRoute(
    method,
    "/api/v1/:path:",
    Effect.fail(new JsonApiError({ status: 404, detail: "Not found.", pointer: null, code: "not_found" })),
    "No review resource at this path"
  )
)

/**
 * Every route of the review API under /api/v1/. New review routes belong in this list: the JSON:API 405s are
 * added for the methods no route of a path serves, so a route added elsewhere would be shadowed by them.
 */
export const reviewRoutes = [
  ...withMethodNotAllowed([
    ...uploadRoutes,
    ...mediaRoutes,
    ...reviewReadRoutes,
    ...contentRoutes,
    ...templateSettingRoutes,
    ...assignmentRoutes,
    ...reviewWriteRoutes,
    ...recordWriteRoutes,
    ...operationRoutes,
    ...activityRoutes,
    ...reviewBridgeRoutes
  ]),
  ...unknownPaths,
  // `/api/` leads to the current version, as in the reference.
  publicRoute("GET", "/api", Effect.succeed(empty(302, { Location: "/api/v1/" })), {
    summary: "Redirects to the review API root /api/v1/",
    tag: "review"
  })
]
