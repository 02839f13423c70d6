import { Context, Effect } from "effect"
import type { LegacyUser } from "./User.ts"

/** Who is calling, whatever the transport (HTTP or RPC). Use cases read it to scope data and check project access. */
export interface CurrentUserShape {
  readonly user: LegacyUser
  readonly isAdmin: boolean
  /** The project ids this user may access; read lazily because most requests never ask. */
  readonly grantedProjects: Effect.Effect<ReadonlyArray<string>>
}

export class CurrentUser extends Context.Tag("quarry/CurrentUser")<CurrentUser, CurrentUserShape>() {}
