import { apiKeyRoutes } from "./legacy/ApiKeyHttp.ts"
import { authRoutes } from "./legacy/AuthHttp.ts"
import { statusRoutes } from "./legacy/StatusHttp.ts"
import type { Route } from "./Router.ts"

/** The services a list of routes needs; lets groups with different needs share one table. */
type ServicesOf<Routes> = Routes extends ReadonlyArray<Route<infer R>> ? R : never

/** Every group of routes; each group adds its list here. */
const groups = [statusRoutes, apiKeyRoutes, authRoutes]

/** Every route of the HTTP APIs. */
export const allRoutes: ReadonlyArray<Route<ServicesOf<(typeof groups)[number]>>> = groups.flat()
