import type { IncomingMessage } from "node:http"
import { errorBody, SearchRequestError } from "../../search/postgres/dsl/Errors.ts"
import { type HttpResponse, json, noHeaders } from "../../transport/Http.ts"
import { errorsDocument, JsonApiError } from "../review/JsonApiError.ts"
import { changesState, type GuardSettings, hostAllowed, originAllowed } from "../../transport/Origins.ts"

/**
 * Requests a web page may make to Quarry from another site. Browsers send a page's requests with the user's
 * cookies, and in LOCAL mode every request is the local user anyway, so the server itself refuses what another site's
 * page asks: writes from a foreign `Origin`, and any request naming a foreign `Host` (a DNS-rebinding page, whose
 * own name resolves to this server). Requests without `Origin` do not come from a page of another site.
 */

/**
 * A refusal in the error shape of the API the path belongs to: a JSON:API errors document under /api/v1/,
 * Elasticsearch's error on the search proxy, `{"error": message}` elsewhere.
 */
export const refusal = (path: string, status: number, message: string, code: string, headers = noHeaders): HttpResponse => {
  if (path.startsWith("/api/v1/")) {
    const body = errorsDocument([new JsonApiError({ status, detail: message, pointer: "/data", code })])
    return { status, headers, body: { _tag: "Json", value: body, contentType: "application/vnd.api+json" } }
  }
  if (path.startsWith("/api/index/search/")) {
    const esType = status === 415 ? "media_type_header_exception" : "security_exception"
    return json(errorBody(new SearchRequestError({ esType, reason: message, status })), status, headers)
  }
  return json({ error: message }, status, headers)
}

/** The refusal of a request a page of another site may have sent, or undefined when it may go on. */
export const browserRefusal = (request: IncomingMessage, path: string, settings: GuardSettings): HttpResponse | undefined => {
  const { host, origin } = request.headers
  if (!hostAllowed(host, settings)) {
    return refusal(path, 403, `requests for the host ${host} are refused: add it to allowedHosts`, "permission_denied")
  }
  // A preflight from a page asks for what only writes need (methods, headers): answered only to allowed origins.
  const method = request.method ?? "GET"
  if ((changesState(method) || method === "OPTIONS") && !originAllowed(origin, host, settings.cors)) {
    return refusal(path, 403, `${method} from the origin ${origin} is refused: the cors setting does not name it`, "permission_denied")
  }
  return undefined
}

/** Media types any page can send to another site without a preflight. */
const formTypes = ["application/x-www-form-urlencoded", "multipart/form-data"]

/** What a route's body may be sent as; see `Route.bodyTypes`. */
export type BodyTypes = "json" | "jsonOrText" | "own"

/** The 415 of a write whose body type the route does not take, or undefined. */
export const mediaTypeRefusal = (request: IncomingMessage, path: string, bodyTypes: BodyTypes): HttpResponse | undefined => {
  if (bodyTypes === "own" || !changesState(request.method ?? "GET")) return undefined
  const contentType = request.headers["content-type"] ?? ""
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  const refused = formTypes.includes(mediaType) || (bodyTypes === "json" && mediaType === "text/plain")
  return refused
    ? refusal(path, 415, `Unsupported media type "${contentType}" in request: send JSON as application/json`, "unsupported_media_type")
    : undefined
}
