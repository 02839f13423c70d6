/**
 * The typed client of Quarry's RPC API, for internal tools:
 *
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { makeQuarryClient } from "quarry/rpc/client"
 *
 * const program = Effect.gen(function* () {
 *   const quarry = yield* makeQuarryClient({
 *     url: "http://127.0.0.1:8080",
 *     credentials: { _tag: "Basic", user: "alice", password: "s3cret" },
 *     transport: "websocket"
 *   })
 *   const { index } = yield* quarry.scanAndIndex({ path: "/data/leaks" })
 *   yield* quarry.watchTasks({ id: index.id }).pipe(Stream.runForEach((task) => Effect.log(task.state, task.progress)))
 *   const { total, hits } = yield* quarry.searchDocuments({ query: "annual report", projects: ["local-datashare"] })
 * })
 * Effect.runPromise(Effect.scoped(program))
 * ```
 *
 * Every procedure of `QuarryRpcs` is a method; a failure is the procedure's typed error (the same classes the
 * server fails with, e.g. `TaskNotFound`, `ProjectForbidden`) or an `RpcClientError` when the server cannot be
 * reached or refuses the credentials (401). Streams are Effect `Stream`s: stopping to consume one (interrupting
 * it, `Stream.take`…) cancels it on the server. The connection lasts as long as the scope the client is made in.
 */
import { FetchHttpClient, HttpClient, HttpClientRequest, Socket } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Effect, Layer } from "effect"
import { WebSocket } from "ws"
import { QuarryRpcs, rpcPaths } from "./QuarryRpcs.ts"

export { QuarryRpcs } from "./QuarryRpcs.ts"
export { InvalidPayload } from "./RefuseNul.ts"

/** How the client signs in: as on the HTTP API. In LOCAL mode no credentials are needed. */
export type Credentials =
  | { readonly _tag: "Basic"; readonly user: string; readonly password: string }
  /** An API key (`POST /api/key/<user>`), sent as `Authorization: Bearer <key>`. */
  | { readonly _tag: "ApiKey"; readonly key: string }
  /** A session cookie of a signed-in browser or tool, as its `Cookie` header: `_ds_session_id=...`. */
  | { readonly _tag: "Session"; readonly cookie: string }

/**
 * `ndjson` (HTTP, the default) and `msgpack` (HTTP, MessagePack: smaller and faster to decode) make one HTTP
 * request per call; `websocket` opens one connection for every call and stream of the client.
 */
export type Transport = "ndjson" | "msgpack" | "websocket"

export interface QuarryClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string
  readonly credentials?: Credentials | undefined
  readonly transport?: Transport | undefined
}

/** The HTTP headers carrying the credentials. */
export const credentialHeaders = (credentials: Credentials | undefined): Record<string, string> => {
  switch (credentials?._tag) {
    case undefined:
      return {}
    case "Basic":
      return { authorization: `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64")}` }
    case "ApiKey":
      return { authorization: `Bearer ${credentials.key}` }
    case "Session":
      return { cookie: credentials.cookie }
  }
}

const baseUrl = (url: string) => url.replace(/\/+$/, "")

/** HTTP transports: a refused request (401, 403…) fails the call instead of waiting for RPC messages. */
const httpProtocol = (url: string, headers: Record<string, string>, serialization: Layer.Layer<RpcSerialization.RpcSerialization>) => {
  const http = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      client.pipe(HttpClient.mapRequest(HttpClientRequest.setHeaders(headers)), HttpClient.filterStatusOk)
    )
  ).pipe(Layer.provide(FetchHttpClient.layer))
  return RpcClient.layerProtocolHttp({ url }).pipe(Layer.provide([http, serialization]))
}

/** The WebSocket transport: the credentials go with the opening handshake, which the server authenticates. */
const websocketProtocol = (url: string, headers: Record<string, string>) => {
  const constructor = Layer.succeed(
    Socket.WebSocketConstructor,
    (address, protocols) => new WebSocket(address, protocols, { headers }) as unknown as globalThis.WebSocket
  )
  const socket = Layer.scoped(Socket.Socket, Socket.makeWebSocket(url.replace(/^http/, "ws"))).pipe(Layer.provide(constructor))
  return RpcClient.layerProtocolSocket().pipe(Layer.provide([socket, RpcSerialization.layerJson]))
}

/** The RPC protocol of a transport, for `RpcClient.make` of `QuarryRpcs` or of any of its groups. */
export const quarryProtocol = (options: QuarryClientOptions): Layer.Layer<RpcClient.Protocol> => {
  const url = baseUrl(options.url)
  const headers = credentialHeaders(options.credentials)
  switch (options.transport ?? "ndjson") {
    case "ndjson":
      return httpProtocol(`${url}${rpcPaths.ndjson}`, headers, RpcSerialization.layerNdjson)
    case "msgpack":
      return httpProtocol(`${url}${rpcPaths.msgpack}`, headers, RpcSerialization.layerMsgPack)
    case "websocket":
      return websocketProtocol(`${url}${rpcPaths.websocket}`, headers)
  }
}

/** A typed client of every group of `QuarryRpcs`, open until the scope closes. */
export const makeQuarryClient = (options: QuarryClientOptions) =>
  Effect.flatMap(Layer.build(quarryProtocol(options)), (protocol) => RpcClient.make(QuarryRpcs).pipe(Effect.provide(protocol)))

export type QuarryClient = Effect.Effect.Success<ReturnType<typeof makeQuarryClient>>
