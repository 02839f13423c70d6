import { Effect } from "effect"
import { HttpRequest } from "../../transport/Http.ts"
import { badRequest, bodyError, JsonApiError } from "./JsonApiError.ts"

export interface FormPart {
  readonly filename: string | undefined
  readonly content: Buffer
}

const crlf = Buffer.from("\r\n")
const headerEnd = Buffer.from("\r\n\r\n")

/** The parts of a `multipart/form-data` body by field name (the last one wins when a name repeats). */
export const readForm = Effect.gen(function* () {
  const request = yield* HttpRequest
  const contentType = request.headers["content-type"] ?? ""
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType)?.[1]
  if (boundary === undefined) {
    return yield* new JsonApiError({
      status: 415,
      detail: `Unsupported media type "${contentType}" in request.`,
      pointer: "/data",
      code: "unsupported_media_type"
    })
  }
  const body = yield* request.body.pipe(Effect.mapError(bodyError))
  const delimiter = Buffer.from(`--${boundary}`)
  const parts = new Map<string, FormPart>()
  let start = body.indexOf(delimiter)
  while (start >= 0) {
    const afterDelimiter = start + delimiter.length
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === "--") break
    const headersStart = afterDelimiter + crlf.length
    const headersEnd = body.indexOf(headerEnd, headersStart)
    const next = body.indexOf(delimiter, headersEnd)
    if (headersEnd < 0 || next < 0) return yield* badRequest("Multipart form parse error - the body is truncated.", "/data", "parse_error")
    const headers = body.subarray(headersStart, headersEnd).toString("utf8")
    const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? ""
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1]
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1]
    // The part's content ends with the CRLF that precedes the next delimiter.
    if (name !== undefined) parts.set(name, { filename, content: body.subarray(headersEnd + headerEnd.length, next - crlf.length) })
    start = next
  }
  return parts
})
