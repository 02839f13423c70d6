import type { IncomingMessage } from "node:http"
import type { Readable } from "node:stream"
import { HttpApiSchema } from "@effect/platform"
import { Context, Effect, ParseResult, Schema } from "effect"
import { holdsNul, nulRefusal } from "../db/Nul.ts"
import { BadRequest, type PayloadTooLarge } from "../domain/RequestErrors.ts"
import { jsonTooDeep, tooDeepMessage } from "./JsonDepth.ts"

/** The request being answered, provided to every handler. */
export interface HttpRequestShape {
  readonly method: string
  /** The path as sent, without the query string (still percent-encoded). */
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage["headers"]
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>
  readonly remoteAddress: string
  /** The body bytes, read once on first use. */
  readonly body: Effect.Effect<Buffer, BadRequest | PayloadTooLarge>
  readonly raw: IncomingMessage
}

export class HttpRequest extends Context.Tag("quarry/HttpRequest")<HttpRequest, HttpRequestShape>() {}

/** What a handler answers; the server applies the legacy conventions (ETag, CORS, empty bodies) when writing it. */
export type ResponseBody =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Json"; readonly value: unknown; readonly contentType?: string }
  | { readonly _tag: "Text"; readonly text: string; readonly contentType: string }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array; readonly contentType: string }
  | { readonly _tag: "Stream"; readonly stream: Readable; readonly contentType: string }

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: ResponseBody
}

/** The shared empty header set; answers without extra headers reuse it so writers can skip merging. */
export const noHeaders: Readonly<Record<string, string>> = {}

export const jsonContentType = "application/json;charset=UTF-8"

export const json = (value: unknown, status = 200, headers = noHeaders): HttpResponse => ({
  status,
  headers,
  body: { _tag: "Json", value }
})

export const empty = (status = 200, headers = noHeaders): HttpResponse => ({ status, headers, body: { _tag: "Empty" } })

export const text = (value: string, contentType: string, status = 200, headers = noHeaders): HttpResponse => ({
  status,
  headers,
  body: { _tag: "Text", text: value, contentType }
})

export const bytes = (value: Uint8Array, contentType: string, headers = noHeaders, status = 200): HttpResponse => ({
  status,
  headers,
  body: { _tag: "Bytes", bytes: value, contentType }
})

export const stream = (source: Readable, contentType: string, headers = noHeaders, status = 200): HttpResponse => ({
  status,
  headers,
  body: { _tag: "Stream", stream: source, contentType }
})

/** The preflight answer of the legacy API: 200, no body, the allowed methods in Access-Control-Allow-Methods. */
export const allowMethods = (methods: string, extraHeaders = noHeaders): HttpResponse =>
  empty(200, { "Access-Control-Allow-Methods": methods, ...extraHeaders })

/** The HTTP status of an expected error: the status annotation of its Schema class, else 500. */
export const statusOf = (error: unknown): number => {
  const constructor = typeof error === "object" && error !== null ? error.constructor : undefined
  return constructor !== undefined && Schema.isSchema(constructor) ? HttpApiSchema.getStatusErrorAST(constructor.ast) : 500
}

/**
 * Reads the body as JSON whatever its Content-Type (front ends send JSON as text/plain) and decodes it with
 * `schema`; malformed or invalid bodies answer 400 with the reason.
 */
export const jsonBody = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.gen(function* () {
    const request = yield* HttpRequest
    const text = (yield* request.body).toString("utf8")
    if (jsonTooDeep(text)) return yield* new BadRequest({ message: tooDeepMessage })
    const parsed = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => new BadRequest({ message: "the request body is not valid JSON" })
    })
    if (holdsNul(parsed)) return yield* new BadRequest({ message: nulRefusal })
    return yield* Schema.decodeUnknown(schema)(parsed).pipe(
      Effect.mapError((error) => new BadRequest({ message: ParseResult.TreeFormatter.formatErrorSync(error) }))
    )
  })

/** A query parameter, or undefined when absent. */
export const queryParam = (name: string) => Effect.map(HttpRequest, (request) => request.query.get(name) ?? undefined)

/** A path parameter captured by the route. */
export const pathParam = (name: string) => Effect.map(HttpRequest, (request) => request.params[name] ?? "")
