import { Effect, Layer } from "effect"
import { type BackendRequest, type BackendResponse, SearchBackend } from "../SearchBackend.ts"
import { describeFailure, ElasticsearchClient, type ElasticsearchUnreachable } from "./Client.ts"

/**
 * The path as the router gives it (percent-decoded) made a URL path again, segment by segment; the commas of
 * index lists stay as clients write them.
 */
const encodePath = (path: string) =>
  "/" +
  path
    .replace(/^\/+/, "")
    .split("/")
    .map((segment) => encodeURIComponent(segment).replace(/%2C/gi, ","))
    .join("/")

/**
 * What is sent: the body as JSON text, whatever its JSON type. A GET with a body carries it as the `source`
 * parameter instead, with its query parameters dropped (the seed's rule for the proxy, which Elasticsearch
 * understands), since not every HTTP layer passes a GET request's body on.
 */
const forwarded = (request: BackendRequest): { querystring: Record<string, string>; body: string | undefined } => {
  if (request.method === "GET" && request.body !== undefined) {
    return { querystring: { source: JSON.stringify(request.body), source_content_type: "application/json" }, body: undefined }
  }
  const body = request.method === "HEAD" || request.body === undefined ? undefined : JSON.stringify(request.body)
  return { querystring: Object.fromEntries(request.query), body }
}

/** An Elasticsearch-shaped error body for a cluster that did not answer, with a gateway status. */
const gatewayError = (failure: ElasticsearchUnreachable): BackendResponse => {
  const status = failure.timedOut ? 504 : 502
  const type = failure.timedOut ? "timeout_exception" : "connect_transport_exception"
  const reason = describeFailure(failure)
  return { status, body: { error: { root_cause: [{ type, reason }], type, reason }, status } }
}

/**
 * Forwards proxy requests to the cluster unchanged and answers what it answered, errors included (a 404
 * `index_not_found_exception`, a 400 `parsing_exception`…). A cluster that cannot be reached or does not
 * answer in time gets a 502 or 504 with an Elasticsearch-shaped body. Requests are not retried: the client
 * that sent it decides.
 */
export const ElasticsearchSearchBackend = Layer.effect(
  SearchBackend,
  Effect.gen(function* () {
    const elasticsearch = yield* ElasticsearchClient

    const handle = (request: BackendRequest) => {
      const { querystring, body } = forwarded(request)
      return elasticsearch
        .call((client, signal) =>
          client.transport.request(
            { method: request.method, path: encodePath(request.path), querystring, ...(body === undefined ? {} : { body }) },
            { meta: true, maxRetries: 0, signal }
          )
        )
        .pipe(
          Effect.map((result): BackendResponse => ({
            status: result.statusCode ?? 200,
            body: request.method === "HEAD" ? undefined : result.body
          })),
          Effect.catchTags({
            ElasticsearchResponseError: (error) =>
              Effect.succeed<BackendResponse>({ status: error.status, body: request.method === "HEAD" ? undefined : error.body }),
            ElasticsearchUnreachable: (failure) =>
              Effect.as(Effect.logWarning(`search backend: ${describeFailure(failure)}`), gatewayError(failure))
          })
        )
    }

    return SearchBackend.of({ handle })
  })
)
