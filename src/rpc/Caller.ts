import type { Headers } from "@effect/platform"
import { Effect } from "effect"
import type { ProjectEditor } from "../domain/project/Access.ts"
import { CurrentUser, type CurrentUserShape } from "../domain/user/CurrentUser.ts"

/** Who made an RPC request (their login), from its headers. */
export type CallerOf = (headers: Headers.Headers) => Effect.Effect<string>

/** The caller of an RPC as the project-scoped services check it: the user, and its login, projects and role. */
export interface RpcCaller {
  readonly current: CurrentUserShape
  readonly editor: ProjectEditor
}

/**
 * The authenticated caller of an RPC request. The endpoint authenticates each HTTP request or WebSocket exactly
 * as the HTTP API does and names the caller in the headers the handlers receive; handlers read it from there.
 */
export interface RpcCallers {
  /** The caller's login. */
  readonly callerOf: CallerOf
  /**
   * Runs `effect` as the request's caller: it sees the caller as `CurrentUser`, as an HTTP handler does, so the
   * domain's access rules (`projectCaller`, `requireWritableProject`) apply as they do to HTTP requests.
   */
  readonly asCaller: <A, E, R>(headers: Headers.Headers, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, CurrentUser>>
  /** The caller with its granted projects read, for the services that take a `ProjectEditor`. */
  readonly caller: (headers: Headers.Headers) => Effect.Effect<RpcCaller>
}

export const makeRpcCallers = (userOf: (headers: Headers.Headers) => Effect.Effect<CurrentUserShape>): RpcCallers => ({
  callerOf: (headers) => Effect.map(userOf(headers), (current) => current.user.id),
  asCaller: (headers, effect) => Effect.flatMap(userOf(headers), (current) => Effect.provideService(effect, CurrentUser, current)),
  caller: (headers) =>
    Effect.flatMap(userOf(headers), (current) =>
      Effect.map(current.grantedProjects, (grantedProjects) => ({
        current,
        editor: { login: current.user.id, grantedProjects, isAdmin: current.isAdmin }
      }))
    )
})
