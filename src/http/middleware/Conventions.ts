import { createHash } from "node:crypto"
import type * as http from "node:http"
import { type HttpResponse, jsonContentType } from "../Http.ts"

/** ETag of the legacy API: the lowercase hex MD5 of the body bytes. */
export const etagOf = (bytes: Uint8Array) => createHash("md5").update(bytes).digest("hex")

const bodyBytes = (response: HttpResponse): { bytes: Buffer; contentType: string } | undefined => {
  const body = response.body
  switch (body._tag) {
    case "Json":
      return { bytes: Buffer.from(JSON.stringify(body.value)), contentType: body.contentType ?? jsonContentType }
    case "Text":
      return { bytes: Buffer.from(body.text), contentType: body.contentType }
    case "Bytes":
      return { bytes: Buffer.from(body.bytes), contentType: body.contentType }
    default:
      return undefined
  }
}

const ifNoneMatch = (request: http.IncomingMessage) => request.headers["if-none-match"]?.replace(/"/g, "").trim()

/**
 * Writes a response with the legacy conventions: the CORS origin header on everything, ETag on bodies with 304
 * for a matching If-None-Match, `Content-Length: 0` on empty answers, and no body for HEAD, 204 and 304.
 */
export const writeResponse = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  answer: HttpResponse,
  cors: string
) => {
  const headers: Record<string, string> = { ...answer.headers }
  if (cors !== "no-cors") headers["Access-Control-Allow-Origin"] = cors
  const sendsBody = request.method !== "HEAD" && answer.status !== 204
  if (answer.body._tag === "Stream") {
    const source = answer.body.stream
    response.writeHead(answer.status, { ...headers, "Content-Type": answer.body.contentType })
    if (!sendsBody) {
      source.destroy()
      response.end()
      return
    }
    source.on("error", () => response.destroy())
    source.pipe(response)
    return
  }
  const content = bodyBytes(answer)
  if (content === undefined) {
    response.writeHead(answer.status, { ...headers, "Content-Length": "0" })
    response.end()
    return
  }
  const etag = etagOf(content.bytes)
  if (answer.status === 200 && ifNoneMatch(request) === etag) {
    response.writeHead(304, { ...headers, ETag: etag })
    response.end()
    return
  }
  response.writeHead(answer.status, {
    ...headers,
    "Content-Type": content.contentType,
    "Content-Length": String(content.bytes.length),
    ETag: etag
  })
  response.end(sendsBody ? content.bytes : undefined)
}
