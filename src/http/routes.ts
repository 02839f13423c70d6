import { statusRoutes } from "./legacy/StatusHttp.ts"

/** Every route of the HTTP APIs; each group adds its list here. */
export const allRoutes = [...statusRoutes]
