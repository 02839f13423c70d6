import { createHash } from "node:crypto"
import type * as http from "node:http"
import { type HttpResponse, jsonContentType } from "./Http.ts"
import { allowOriginFor } from "./Origins.ts"

/** ETag of the legacy API: the lowercase hex MD5 of the body bytes (a string is hashed as UTF-8). */
export const etagOf = (content: string | Uint8Array) => createHash("md5").update(content).digest("hex")

/**
 * Text bodies stay strings up to the socket: Node then sends headers and body in one write instead of
 * a two-buffer writev, which is measurable on small JSON answers.
 */
const bodyContent = (response: HttpResponse): { content: string | Uint8Array; contentType: string } | undefined => {
  const body = response.body
  switch (body._tag) {
    case "Json":
      return { content: JSON.stringify(body.value), contentType: body.contentType ?? jsonContentType }
    case "Text":
      return { content: body.text, contentType: body.contentType }
    case "Bytes":
      return { content: body.bytes, contentType: body.contentType }
    default:
      return undefined
  }
}

const byteLength = (content: string | Uint8Array) => (typeof content === "string" ? Buffer.byteLength(content) : content.length)

const ifNoneMatch = (request: http.IncomingMessage) => {
  const value = request.headers["if-none-match"]
  return value === undefined ? undefined : value.replace(/"/g, "").trim()
}

/**
 * Writes a response with the legacy conventions: the CORS origin header the `cors` setting allows, ETag on bodies with 304
 * for a matching If-None-Match, `Content-Length: 0` on empty answers, and no body for HEAD, 204 and 304.
 */
export const writeResponse = (request: http.IncomingMessage, response: http.ServerResponse, answer: HttpResponse, cors: string) => {
  // One header object, filled in place: this runs for every response.
  const headers: Record<string, string> = { ...answer.headers }
  const allowOrigin = allowOriginFor(cors, request.headers.origin)
  if (allowOrigin !== undefined) {
    headers["Access-Control-Allow-Origin"] = allowOrigin
    // An answer naming one origin differs by origin: caches must not hand it to another.
    if (allowOrigin !== "*") headers.Vary = "Origin"
    // A preflight of an allowed origin also allows the headers its JSON requests send, or the browser stops there.
    if (request.method === "OPTIONS" && headers["Access-Control-Allow-Headers"] === undefined) {
      headers["Access-Control-Allow-Headers"] = "Content-Type, Authorization"
    }
  }
  const sendsBody = request.method !== "HEAD" && answer.status !== 204
  if (answer.body._tag === "Stream") {
    const source = answer.body.stream
    headers["Content-Type"] = answer.body.contentType
    response.writeHead(answer.status, headers)
    if (!sendsBody) {
      source.destroy()
      response.end()
      return
    }
    source.on("error", () => response.destroy())
    source.pipe(response)
    return
  }
  const body = bodyContent(answer)
  if (body === undefined) {
    headers["Content-Length"] = "0"
    response.writeHead(answer.status, headers)
    response.end()
    return
  }
  const etag = etagOf(body.content)
  headers.ETag = etag
  if (answer.status === 200 && ifNoneMatch(request) === etag) {
    response.writeHead(304, headers)
    response.end()
    return
  }
  headers["Content-Type"] = body.contentType
  headers["Content-Length"] = String(byteLength(body.content))
  response.writeHead(answer.status, headers)
  response.end(sendsBody ? body.content : undefined)
}
