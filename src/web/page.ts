import type { currentRoute } from "./dom.ts"
import type { Session } from "./session.ts"

/**
 * A page fills `main` for the current route; it answers its title. Its own module, so that the pages and main.ts
 * (which routes to them) both import it rather than each other.
 */
export type Page = (main: HTMLElement, session: Session, route: ReturnType<typeof currentRoute>) => Promise<string>
