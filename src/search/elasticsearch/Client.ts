import type { Client, errors as ClientErrors } from "@elastic/elasticsearch"
import { Context, Data, Effect, Layer } from "effect"

/** Timeouts and retries of the calls to the cluster; tests shorten them. */
export interface ElasticsearchOptions {
  /** Milliseconds one request may take before it is abandoned. */
  readonly requestTimeout: number
  /** Retries of a request whose connection failed or that answered 502/503/504 (index writes only). */
  readonly maxRetries: number
}

export const defaultElasticsearchOptions: ElasticsearchOptions = { requestTimeout: 60_000, maxRetries: 3 }

/** The cluster answered with an error status; its status and body as Elasticsearch gave them. */
export class ElasticsearchResponseError extends Data.TaggedError("ElasticsearchResponseError")<{
  readonly status: number
  readonly body: unknown
}> {}

/** No answer from the cluster: it could not be reached, did not answer in time, or is not Elasticsearch. */
export class ElasticsearchUnreachable extends Data.TaggedError("ElasticsearchUnreachable")<{
  readonly timedOut: boolean
  readonly reason: string
}> {}

export type ElasticsearchFailure = ElasticsearchResponseError | ElasticsearchUnreachable

export interface ElasticsearchClientShape {
  readonly options: ElasticsearchOptions
  /** Runs one client call; its failures become typed errors. The signal aborts the request on interruption. */
  readonly call: <A>(run: (client: Client, signal: AbortSignal) => Promise<A>) => Effect.Effect<A, ElasticsearchFailure>
}

export class ElasticsearchClient extends Context.Tag("quarry/ElasticsearchClient")<ElasticsearchClient, ElasticsearchClientShape>() {}

const failureOf = (errors: typeof ClientErrors, cause: unknown): ElasticsearchFailure => {
  if (cause instanceof errors.ResponseError) {
    return new ElasticsearchResponseError({ status: cause.meta.statusCode ?? 500, body: cause.meta.body })
  }
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new ElasticsearchUnreachable({ timedOut: cause instanceof errors.TimeoutError, reason })
}

/**
 * One client for the cluster at `address` (credentials may be in the URL). Requests and answers are plain
 * `application/json`, which Elasticsearch 7 and 8 both accept: the client's default versioned media type
 * (`compatible-with=8`) is refused by a 7.x cluster. The client library is loaded only when Elasticsearch is
 * configured, so that the default PostgreSQL setup does not pay for loading it.
 */
export const elasticsearchClientLayer = (address: string, options: ElasticsearchOptions = defaultElasticsearchOptions) =>
  Layer.scoped(
    ElasticsearchClient,
    Effect.gen(function* () {
      const library = yield* Effect.promise(() => import("@elastic/elasticsearch"))
      const client = yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new library.Client({
              node: address,
              headers: { accept: "application/json", "content-type": "application/json" },
              requestTimeout: options.requestTimeout,
              maxRetries: options.maxRetries
            })
        ),
        (client) => Effect.promise(() => client.close())
      )
      const call = <A>(run: (client: Client, signal: AbortSignal) => Promise<A>) =>
        Effect.tryPromise({ try: (signal) => run(client, signal), catch: (cause) => failureOf(library.errors, cause) })
      return ElasticsearchClient.of({ options, call })
    })
  )

/** The request options of a bulk call: its NDJSON body says so. */
export const ndjson = { headers: { "content-type": "application/x-ndjson" } } as const

/** `type` of an Elasticsearch error body (`{"error":{"type":...}}`), when there is one. */
export const errorType = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined
  const error = body.error
  return typeof error === "object" && error !== null && "type" in error && typeof error.type === "string" ? error.type : undefined
}

/** A short description of a failure, for logs and for DocumentIndexUnavailable. */
export const describeFailure = (failure: ElasticsearchFailure) => {
  if (failure._tag === "ElasticsearchUnreachable") {
    return failure.timedOut
      ? `Elasticsearch did not answer in time (${failure.reason})`
      : `Elasticsearch is unreachable (${failure.reason})`
  }
  const type = errorType(failure.body)
  return `Elasticsearch answered ${failure.status}${type === undefined ? "" : ` (${type})`}`
}
