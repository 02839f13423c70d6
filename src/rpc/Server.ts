import { randomUUID } from "node:crypto"
import { type IncomingMessage, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { type HttpApp, HttpIncomingMessage, HttpServerRequest, HttpServerResponse, type Headers, Socket } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, FiberSet, Layer, Option } from "effect"
import { WebSocketServer, type WebSocket } from "ws"
import { Settings } from "../config/Settings.ts"
import { type HttpRequestShape, json, statusOf } from "../transport/Http.ts"
import { BadRequest } from "../domain/RequestErrors.ts"
import { jsonTooDeep, tooDeepMessage } from "../transport/JsonDepth.ts"
import { type Authentication, Authenticator, Unauthorized } from "../transport/Authentication.ts"
import type { CurrentUserShape } from "../domain/user/CurrentUser.ts"
import { writeResponse } from "../transport/Conventions.ts"
import type { Mount } from "../transport/Mount.ts"
import { allowOriginFor, hostAllowed, originAllowed } from "../transport/Origins.ts"
import { makeRpcCallers } from "./Caller.ts"
import { quarryRpcHandlers } from "./QuarryRpcHandlers.ts"
import { QuarryRpcs, rpcPaths } from "./QuarryRpcs.ts"

/**
 * Carries the caller of an authenticated request or WebSocket to the RPC handlers: RPC handlers run in the RPC
 * server's fibers, not the request's, and see only headers. The value is a random token naming the caller in
 * memory while the request or connection lasts; any value a client sends is overwritten.
 */
const callerHeader = "x-quarry-rpc-caller"

const pathOf = (url: string | undefined) => (url ?? "/").split("?")[0] ?? "/"

const requestShape = (incoming: IncomingMessage): HttpRequestShape => {
  const url = incoming.url ?? "/"
  const queryStart = url.indexOf("?")
  return {
    method: incoming.method ?? "POST",
    path: pathOf(url),
    query: new URLSearchParams(queryStart < 0 ? "" : url.slice(queryStart + 1)),
    headers: incoming.headers,
    params: {},
    remoteAddress: incoming.socket.remoteAddress ?? "",
    body: Effect.fail(new BadRequest({ message: "the RPC server reads RPC bodies" })),
    raw: incoming
  }
}

const basicChallenge = { "WWW-Authenticate": 'Basic realm="datashare"' }

/** Answers a refused WebSocket upgrade as the HTTP API answers a refused request, then closes the socket. */
const refuseUpgrade = (socket: Duplex, status: number, message: string) => {
  const body = JSON.stringify({ error: message })
  const headers = {
    ...(status === 401 ? basicChallenge : {}),
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close"
  }
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${head}\r\n${body}`)
}

/**
 * The server request the RPC WebSocket app reads: the caller's token as its only header, and the accepted
 * WebSocket as its upgrade. @effect/platform-node builds such requests only for servers it runs itself.
 */
const upgradedRequest = (url: string, token: string, socket: Effect.Effect<Socket.Socket>) =>
  new Proxy(HttpServerRequest.fromWeb(new Request(`http://localhost${url}`, { headers: { [callerHeader]: token } })), {
    get: (target, property) => (property === "upgrade" ? socket : Reflect.get(target, property))
  })

/** RPC bodies over HTTP: a batch search created from 60 000 queries is a few megabytes. */
const rpcMaxBodyBytes = 16 * 1024 ** 2

/**
 * Refuses an RPC body over the size limit (413) and, for NDJSON, one nested deeper than `maxJsonDepth` (400), before
 * the RPC server parses it: deep payloads overflowed the stack while decoded. The text read here is cached by the
 * request, so the RPC server reads the same text again without the socket.
 */
const guardBody =
  (jsonText: boolean) =>
  <E, R>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const tooLarge = HttpServerResponse.unsafeJson({ error: `RPC bodies are limited to ${rpcMaxBodyBytes} bytes` }, { status: 413 })
      if (Number(request.headers["content-length"] ?? 0) > rpcMaxBodyBytes) return tooLarge
      if (jsonText) {
        // Reading fails past the limit, or when the client went away (which reads no answer).
        const text = yield* Effect.option(request.text)
        if (Option.isNone(text)) return tooLarge
        if (jsonTooDeep(text.value)) return HttpServerResponse.unsafeJson({ error: tooDeepMessage }, { status: 400 })
      }
      return yield* app
    }).pipe(HttpIncomingMessage.withMaxBodySize(Option.some(rpcMaxBodyBytes)))

/** JSON messages of the WebSocket, refused past `maxJsonDepth` before they are parsed; the caller gets a defect answer. */
const depthCheckedJson: RpcSerialization.RpcSerialization["Type"] = {
  ...RpcSerialization.json,
  unsafeMake: () => {
    const parser = RpcSerialization.json.unsafeMake()
    const text = new TextDecoder()
    return {
      ...parser,
      decode: (data) => {
        if (jsonTooDeep(typeof data === "string" ? data : text.decode(data))) throw new BadRequest({ message: tooDeepMessage })
        return parser.decode(data)
      }
    }
  }
}

/**
 * The RPC endpoint: every group of `QuarryRpcs`, over HTTP with NDJSON (`/rpc`) or MessagePack (`/rpc/msgpack`)
 * and over WebSocket (`/rpc/ws`). Each request, and each WebSocket when it opens, is authenticated exactly like
 * the HTTP API (session cookie, API key, Basic; the LOCAL user in LOCAL mode); a refusal answers as the HTTP API.
 */
export class RpcEndpoint extends Effect.Service<RpcEndpoint>()("quarry/RpcEndpoint", {
  scoped: Effect.gen(function* () {
    const settings = yield* Settings
    const authenticator = yield* Authenticator
    const callers = new Map<string, CurrentUserShape>()
    const userOf = (headers: Headers.Headers) => {
      const user = callers.get(headers[callerHeader] ?? "")
      return user === undefined ? Effect.dieMessage("RPC request without an authenticated caller") : Effect.succeed(user)
    }
    const handlers = yield* Layer.build(quarryRpcHandlers(makeRpcCallers(userOf)))
    const httpHandler = (serialization: RpcSerialization.RpcSerialization["Type"]) =>
      RpcServer.toHttpApp(QuarryRpcs, { disableTracing: true }).pipe(
        Effect.provide(handlers),
        Effect.provideService(RpcSerialization.RpcSerialization, serialization),
        Effect.flatMap((app) => NodeHttpServer.makeHandler(guardBody(serialization === RpcSerialization.ndjson)(app)))
      )
    const serveHttp = new Map([
      [rpcPaths.ndjson as string, yield* httpHandler(RpcSerialization.ndjson)],
      [rpcPaths.msgpack as string, yield* httpHandler(RpcSerialization.msgPack)]
    ])
    const websocketApp = yield* RpcServer.toHttpAppWebsocket(QuarryRpcs, { disableTracing: true }).pipe(
      Effect.provide(handlers),
      Effect.provideService(RpcSerialization.RpcSerialization, depthCheckedJson)
    )
    const websockets = yield* Effect.acquireRelease(
      Effect.sync(() => new WebSocketServer({ noServer: true })),
      (server) => Effect.sync(() => server.close())
    )
    // Requests being authenticated and open WebSockets: interrupted (and closed) when the endpoint stops.
    const runFork = yield* FiberSet.makeRuntime<never>()

    /** The caller's token, valid until `release`; a request without a signed-in user is refused (401). */
    const authenticate = (incoming: IncomingMessage) =>
      authenticator.authenticate(requestShape(incoming), false).pipe(
        Effect.filterOrFail(
          (authentication): authentication is Authentication & { readonly user: CurrentUserShape } => authentication.user !== undefined,
          () => new Unauthorized({ message: "authentication required" })
        ),
        Effect.map((authentication) => {
          const token = randomUUID()
          callers.set(token, authentication.user)
          return { token, headers: authentication.headers, release: () => callers.delete(token) }
        }),
        Effect.tapError((error) => (statusOf(error) >= 500 ? Effect.logError("RPC authentication failed", error) : Effect.void)),
        Effect.catchAllDefect((defect) =>
          Effect.logError("RPC authentication failed", defect).pipe(Effect.zipRight(Effect.fail(new Error("internal error"))))
        )
      )

    const refusal = (error: unknown) => {
      const status = statusOf(error)
      return { status, message: status >= 500 || !(error instanceof Error) ? "internal error" : error.message }
    }

    const serveWebSocket = (incoming: IncomingMessage, token: string, webSocket: WebSocket) => {
      const socket = Socket.fromWebSocket(
        Effect.acquireRelease(Effect.succeed(webSocket as unknown as globalThis.WebSocket), (open) => Effect.sync(() => open.close()))
      )
      return websocketApp.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, upgradedRequest(incoming.url ?? "/", token, socket)),
        Effect.scoped
      )
    }

    const mount: Mount = {
      prefix: rpcPaths.ndjson,
      handle: (incoming, outgoing) => {
        const serve = serveHttp.get(pathOf(incoming.url))
        if (serve === undefined) return writeResponse(incoming, outgoing, json({ error: "Not found" }, 404), settings.cors)
        runFork(
          authenticate(incoming).pipe(
            Effect.match({
              onFailure: (error) => {
                const { status, message } = refusal(error)
                writeResponse(incoming, outgoing, json({ error: message }, status, status === 401 ? basicChallenge : {}), settings.cors)
              },
              onSuccess: ({ token, headers, release }) => {
                outgoing.on("close", release)
                incoming.headers[callerHeader] = token
                for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value)
                const allowOrigin = allowOriginFor(settings.cors, incoming.headers.origin)
                if (allowOrigin !== undefined) outgoing.setHeader("Access-Control-Allow-Origin", allowOrigin)
                serve(incoming, outgoing)
              }
            })
          )
        )
      },
      upgrade: (incoming, socket, head) => {
        if (pathOf(incoming.url) !== rpcPaths.websocket) return refuseUpgrade(socket, 404, "Not found")
        // Browsers let any page open a WebSocket carrying the user's cookies, with no CORS check: an upgrade from a page
        // is accepted only from the server's own origin or one the `cors` setting names, for a host that is this server.
        if (!hostAllowed(incoming.headers.host, settings))
          return refuseUpgrade(socket, 403, `requests for the host ${incoming.headers.host} are refused: add it to allowedHosts`)
        if (!originAllowed(incoming.headers.origin, incoming.headers.host, settings.cors))
          return refuseUpgrade(socket, 403, `WebSocket from ${incoming.headers.origin} refused`)
        runFork(
          authenticate(incoming).pipe(
            Effect.matchEffect({
              onFailure: (error) => Effect.sync(() => refuseUpgrade(socket, refusal(error).status, refusal(error).message)),
              onSuccess: ({ token, release }) =>
                Effect.async<WebSocket>((resume) =>
                  websockets.handleUpgrade(incoming, socket, head, (webSocket) => resume(Effect.succeed(webSocket)))
                ).pipe(
                  Effect.flatMap((webSocket) => serveWebSocket(incoming, token, webSocket)),
                  Effect.ensuring(Effect.sync(release))
                )
            })
          )
        )
      }
    }
    return { mount }
  })
}) {}
