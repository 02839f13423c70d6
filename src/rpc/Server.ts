import { randomUUID } from "node:crypto"
import type { Headers } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Layer, Runtime } from "effect"
import { Settings } from "../config/Settings.ts"
import { BadRequest, type HttpRequestShape, json, statusOf } from "../http/Http.ts"
import { type Authentication, Authenticator, type CurrentUserShape, Unauthorized } from "../http/middleware/Auth.ts"
import { writeResponse } from "../http/middleware/Conventions.ts"
import type { Mount } from "../http/Server.ts"
import { batchSearchRpcHandlers } from "./BatchSearchRpcHandlers.ts"
import { BatchSearchRpcs } from "./BatchSearchRpcs.ts"
import { namedEntityRpcHandlers } from "./NamedEntityRpcHandlers.ts"
import { NamedEntityRpcs } from "./NamedEntityRpcs.ts"
import { projectRpcHandlers } from "./ProjectRpcHandlers.ts"
import { ProjectRpcs } from "./ProjectRpcs.ts"
import { reviewRpcHandlers } from "./ReviewRpcHandlers.ts"
import { ReviewRpcs } from "./ReviewRpcs.ts"
import { taskRpcHandlers } from "./TaskRpcHandlers.ts"
import { TaskRpcs } from "./TaskRpcs.ts"
import { userRpcHandlers } from "./UserRpcHandlers.ts"
import { UserRpcs } from "./UserRpcs.ts"

/**
 * Carries the caller of an authenticated request to the RPC handlers: RPC handlers run in the RPC server's
 * fiber, not the request's, and see only the request headers. The value is a random token naming the caller
 * in memory while the request lasts; any value a client sends is overwritten.
 */
const callerHeader = "x-quarry-rpc-caller"

/** The RPC endpoint mounted at `/rpc`: authenticated exactly like the HTTP API, then served by @effect/rpc. */
export class RpcEndpoint extends Effect.Service<RpcEndpoint>()("quarry/RpcEndpoint", {
  scoped: Effect.gen(function* () {
    const settings = yield* Settings
    const authenticator = yield* Authenticator
    const callers = new Map<string, string>()
    const callerOf = (headers: Headers.Headers) => {
      const userId = callers.get(headers[callerHeader] ?? "")
      return userId === undefined ? Effect.dieMessage("RPC request without an authenticated caller") : Effect.succeed(userId)
    }
    const handlers = yield* Layer.build(
      Layer.mergeAll(
        taskRpcHandlers(callerOf),
        batchSearchRpcHandlers(callerOf),
        namedEntityRpcHandlers(callerOf),
        projectRpcHandlers(callerOf),
        userRpcHandlers(callerOf),
        reviewRpcHandlers(callerOf),
        RpcSerialization.layerNdjson
      )
    )
    const app = yield* RpcServer.toHttpApp(TaskRpcs.merge(BatchSearchRpcs, NamedEntityRpcs, ProjectRpcs, UserRpcs, ReviewRpcs)).pipe(Effect.provide(handlers))
    const serve = yield* NodeHttpServer.makeHandler(app)
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())

    const mount: Mount = {
      prefix: "/rpc",
      handle: (incoming, outgoing) => {
        const url = incoming.url ?? "/"
        const queryStart = url.indexOf("?")
        const request: HttpRequestShape = {
          method: incoming.method ?? "POST",
          path: queryStart < 0 ? url : url.slice(0, queryStart),
          query: new URLSearchParams(queryStart < 0 ? "" : url.slice(queryStart + 1)),
          headers: incoming.headers,
          params: {},
          remoteAddress: incoming.socket.remoteAddress ?? "",
          body: Effect.fail(new BadRequest({ message: "the RPC server reads RPC bodies" })),
          raw: incoming
        }
        const refuse = (error: Error) =>
          Effect.sync(() => {
            const status = statusOf(error)
            const headers: Record<string, string> = status === 401 ? { "WWW-Authenticate": 'Basic realm="datashare"' } : {}
            writeResponse(incoming, outgoing, json({ error: error.message }, status, headers), settings.cors)
          })
        const program = authenticator.authenticate(request, false).pipe(
          Effect.filterOrFail(
            (authentication): authentication is Authentication & { readonly user: CurrentUserShape } => authentication.user !== undefined,
            () => new Unauthorized({ message: "authentication required" })
          ),
          Effect.matchEffect({
            onFailure: refuse,
            onSuccess: (authentication) =>
              Effect.sync(() => {
                const token = randomUUID()
                callers.set(token, authentication.user.user.id)
                outgoing.on("close", () => callers.delete(token))
                incoming.headers[callerHeader] = token
                for (const [name, value] of Object.entries(authentication.headers)) outgoing.setHeader(name, value)
                if (settings.cors !== "no-cors") outgoing.setHeader("Access-Control-Allow-Origin", settings.cors)
                serve(incoming, outgoing)
              })
          }),
          Effect.catchAllCause((cause) => Effect.logError("RPC authentication failed", cause).pipe(Effect.zipRight(refuse(new Error("internal error")))))
        )
        runFork(program)
      }
    }
    return { mount }
  })
}) {}
