import * as fs from "node:fs"
import { Effect } from "effect"
import { ContentOccurrences, ContentSlice } from "../../domain/document/Content.ts"
import { type Caller, Documents, type DocumentSource } from "../../domain/document/Documents.ts"
import { bytes, HttpRequest, json, pathParam, queryParam, stream } from "../../transport/Http.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { route } from "../Router.ts"

const tag = "documents"

const caller = Effect.gen(function* () {
  const request = yield* HttpRequest
  const current = yield* CurrentUser
  return { grantedProjects: yield* current.grantedProjects, address: request.remoteAddress } satisfies Caller
})

/**
 * `attachment;filename="<name>"` as the reference writes it; a name that is not printable ASCII (which a header
 * cannot carry) gets an ASCII stand-in plus its RFC 5987 `filename*` form.
 */
const contentDisposition = (fileName: string) => {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return ascii === fileName
    ? `attachment;filename="${fileName}"`
    : `attachment;filename="${ascii}";filename*=UTF-8''${encodeURIComponent(fileName)}`
}

/**
 * Originals are hostile: a leaked page shown from this origin would run its scripts with the reader's session. Every
 * original is therefore a sandbox (a unique origin, no scripts, forms or plugins) that loads nothing from anywhere,
 * which also keeps tracking images from telling the sender who read it. Inline styles and images embedded in the
 * document (`data:`) are allowed so that a sandboxed preview of a page or an e-mail stays readable; nosniff keeps
 * browsers from taking a file for a page its content type does not say it is.
 */
const originalHeaders = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"
}

/** Types a browser runs or renders as a page (markup, scripts): never shown inline unless a sandboxed preview is asked for. */
const isActive = (contentType: string) => {
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase()
  return (
    type === "text/html" ||
    type === "text/xml" ||
    type === "text/xsl" ||
    type === "application/xml" ||
    type.endsWith("+xml") ||
    type.includes("javascript") ||
    type.includes("ecmascript") ||
    type === "application/x-shockwave-flash"
  )
}

/**
 * The bytes as an attachment, or (`inline=true`) without Content-Disposition so that browsers show them; markup and
 * scripts stay attachments unless `sandbox=true` says the caller shows them as a sandboxed preview.
 */
const sourceResponse = (source: DocumentSource, inline: boolean, sandboxed: boolean) => {
  const shownInline = inline && (sandboxed || !isActive(source.contentType))
  const headers = shownInline ? originalHeaders : { ...originalHeaders, "Content-Disposition": contentDisposition(source.fileName) }
  return source._tag === "Bytes"
    ? bytes(source.bytes, source.contentType, headers)
    : stream(fs.createReadStream(source.path), source.contentType, { ...headers, "Content-Length": String(source.size) })
}

const documentParams = Effect.all({ project: pathParam("project"), id: pathParam("id"), routing: queryParam("routing") })

const accessNote = "403 when the project is not the caller's; 404 for an unknown document"

export const documentRoutes = [
  route(
    "GET",
    "/api/:project/documents/src/:id",
    Effect.gen(function* () {
      const { project, id, routing } = yield* documentParams
      const inline = (yield* queryParam("inline")) === "true"
      const sandboxed = (yield* queryParam("sandbox")) === "true"
      return sourceResponse(yield* (yield* Documents).source(project, id, routing, yield* caller), inline, sandboxed)
    }),
    {
      summary:
        "The original bytes of a document, as an attachment with the document's content type: a top-level file from " +
        "disk (named as on disk), an embedded document (routing = its root's id) taken out of its root file again " +
        `(named <first 10 characters of its id>.<extension>); inline=true leaves out Content-Disposition, except for markup and ` +
        "scripts (HTML, XML, SVG, JavaScript) unless sandbox=true; always with a sandboxing Content-Security-Policy and nosniff. " +
        `${accessNote}, ` +
        "or when the project's allow_from_mask refuses the client address; 404 also when the file is gone",
      tag,
      query: {
        routing: "id of the root document (embedded documents)",
        inline: "true to answer without Content-Disposition",
        sandbox: "true to have markup and scripts inline too, for a sandboxed preview"
      },
      responseContentType: "application/octet-stream"
    }
  ),
  route(
    "GET",
    "/api/:project/documents/content/:id",
    Effect.gen(function* () {
      const { project, id, routing } = yield* documentParams
      const request = {
        routing,
        offset: yield* queryParam("offset"),
        limit: yield* queryParam("limit"),
        targetLanguage: yield* queryParam("targetLanguage")
      }
      return json(yield* (yield* Documents).content(project, id, request, yield* caller))
    }),
    {
      summary:
        "A slice of a document's text in characters (UTF-16 code units), with the seed's keys (start, size) and the " +
        `reference's (offset, limit, targetLanguage); the whole text without offset and limit. 400 for bounds outside the text; ${accessNote}`,
      tag,
      query: {
        routing: "id of the root document (embedded documents)",
        offset: "first character (with limit)",
        limit: "number of characters (with offset)",
        targetLanguage: "language of a translation; blank for the original"
      },
      response: ContentSlice
    }
  ),
  route(
    "GET",
    "/api/:project/documents/searchContent/:id",
    Effect.gen(function* () {
      const { project, id, routing } = yield* documentParams
      const request = { routing, query: yield* queryParam("query"), targetLanguage: yield* queryParam("targetLanguage") }
      return json(yield* (yield* Documents).searchContent(project, id, request, yield* caller))
    }),
    {
      summary: `Character offsets of every case-insensitive, non-overlapping occurrence of query in a document's text; 400 without query, 404 for an empty one; ${accessNote}`,
      tag,
      query: {
        routing: "id of the root document (embedded documents)",
        query: "text to find",
        targetLanguage: "language of a translation; absent or `original` for the original"
      },
      response: ContentOccurrences
    }
  )
]
