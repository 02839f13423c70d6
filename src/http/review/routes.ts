import { reviewReadRoutes } from "./ReadHttp.ts"
import { withMethodNotAllowed } from "./Route.ts"

/** Every route of the review API under /api/v1/, with JSON:API 405s for the methods a path does not serve. */
export const reviewRoutes = withMethodNotAllowed([...reviewReadRoutes])
