import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, type RpcGroup, RpcSerialization, type Rpc } from "@effect/rpc"
import { Effect, Layer } from "effect"
import { TestServer } from "../helpers/server.ts"

/**
 * A typed client of one RPC group of the test server, over HTTP with NDJSON. Credentials go in HTTP headers of
 * the transport (the endpoint authenticates those); a refused request (401) fails instead of waiting for RPC
 * messages that never come. The client lives as long as the calling scope.
 */
export const groupClient = <Rpcs extends Rpc.Any>(group: RpcGroup.RpcGroup<Rpcs>, headers: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const http = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) =>
        client.pipe(HttpClient.mapRequest(HttpClientRequest.setHeaders(headers)), HttpClient.filterStatusOk)
      )
    ).pipe(Layer.provide(FetchHttpClient.layer))
    const protocol = RpcClient.layerProtocolHttp({ url: `${server.url}/rpc` }).pipe(Layer.provide([http, RpcSerialization.layerNdjson]))
    return yield* RpcClient.make(group).pipe(Effect.provide(yield* Layer.build(protocol)))
  })
