import { Effect } from "effect"
import { checkAccess, checkBodyIndices, checkContinuation, indexList, rememberContinuation } from "../../domain/project/SearchAccess.ts"
import { DocumentIndex } from "../../search/DocumentIndex.ts"
import { errorBody, parsingError, refusal, type SearchRequestError } from "../../search/postgres/dsl/Errors.ts"
import { type BackendRequest, SearchBackend } from "../../search/SearchBackend.ts"
import { allowMethods, empty, HttpRequest, json, pathParam } from "../../transport/Http.ts"
import { BadRequest } from "../../domain/RequestErrors.ts"
import { jsonTooDeep, tooDeepMessage } from "../../transport/JsonDepth.ts"
import { type Route, route } from "../Router.ts"

/**
 * The search index proxy: Elasticsearch requests under
 * `/api/index/search/` checked against the caller's projects and answered by the SearchBackend, whose status and
 * body are returned as they are; and `PUT /api/index/:index` creating a project's index. Who may send what is
 * decided in src/domain/project/SearchAccess.ts.
 */

const tag = "index"

/** The request body as JSON; undefined when empty. A malformed body is the backend's parsing_exception. */
const requestBody = Effect.gen(function* () {
  const request = yield* HttpRequest
  const text = (yield* request.body).toString("utf8")
  if (text.trim() === "") return { _tag: "Empty" } as const
  if (jsonTooDeep(text)) return { _tag: "TooDeep" } as const
  return yield* Effect.try({
    try: () => ({ _tag: "Json", value: JSON.parse(text) as unknown }) as const,
    catch: () => ({ _tag: "Malformed", text }) as const
  }).pipe(Effect.merge)
})

/** An ES error as the proxy's answer. */
const esError = (error: SearchRequestError) => json(errorBody(error), error.status)

/**
 * Every refusal of the proxy in Elasticsearch's error shape (the clients read `error.root_cause`), whether it comes
 * from the proxy's checks, the server (no credentials, a NUL in the URL) or the backend.
 */
export const esErrorBody = (status: number, message: string) => errorBody(refusal(status, message))

const forward = (method: BackendRequest["method"]) =>
  Effect.gen(function* () {
    const path = yield* pathParam("path")
    yield* checkAccess(path, method)
    const request = yield* HttpRequest
    const body = method === "HEAD" ? ({ _tag: "Empty" } as const) : yield* requestBody
    if (body._tag === "Malformed") return esError(parsingError("the request body is not valid JSON"))
    if (body._tag === "TooDeep") return esError(parsingError(tooDeepMessage))
    // A GET body travels as the `source` parameter, as the seed says; the other parameters are then dropped.
    const query =
      method === "GET" && body._tag === "Json"
        ? new URLSearchParams({ source: JSON.stringify(body.value), source_content_type: "application/json" })
        : request.query
    // Indices a body names (`_mget` docs, terms lookups) are checked as those of the path, the `source` parameter's too.
    const source = query.get("source")
    let sourceBody: unknown = null
    try {
      sourceBody = source === null ? null : JSON.parse(source)
    } catch {
      return esError(parsingError("the source parameter is not valid JSON"))
    }
    const bodies = [body._tag === "Json" ? body.value : null, sourceBody]
    yield* checkBodyIndices(bodies)
    const continued = yield* checkContinuation(path, method, query, bodies)
    const backend = yield* SearchBackend
    const answer = yield* backend.handle({
      method,
      path,
      query,
      body: method === "POST" && body._tag === "Json" ? body.value : undefined,
      interactive: true
    })
    if (answer.status === 200) yield* rememberContinuation(path, continued, answer.body)
    return method === "HEAD" ? empty(answer.status) : json(answer.body, answer.status)
  })

const notAllowed = Effect.succeed(json(esErrorBody(405, "DELETE and PUT are not allowed on the search proxy"), 405))

/** A route of the proxy: its failures answer in ES's shape. */
const proxyRoute = <R>(proxied: Route<R>): Route<R> => ({ ...proxied, errorBody: esErrorBody })

const indexName = Effect.gen(function* () {
  const index = yield* pathParam("index")
  if (!indexList.test(index)) return yield* new BadRequest({ message: `Bad format for indices : '${index}'` })
  return index.split(",")
})

const searchSummary =
  "An Elasticsearch request on project indices (`<index>[,<index>]/_search`, `_count`, `_async_search`, `_doc/<id>`, `_source/<id>`, `_mapping/field/<f>`)"
const accessNote =
  "Refusals are in Elasticsearch's error shape: 400 for a path that does not start with an index list; 403 for an index outside the caller's projects (SERVER mode), and for a scroll or async search continued by a caller not granted every index of the search that opened it (404 for an id the proxy did not give out); the backend's status otherwise (404 index_not_found_exception for an unknown index)"

export const indexProxyRoutes = [
  route(
    "PUT",
    "/api/index/:index",
    Effect.gen(function* () {
      const indices = yield* indexName
      const index = yield* DocumentIndex
      const created = yield* Effect.forEach(indices, (name) => index.createIndex(name))
      return empty(created.some((wasCreated) => wasCreated) ? 201 : 200)
    }),
    { summary: "Creates a project's index: 201 when created, 200 when it exists; 400 for a bad name", tag, responseStatus: 201 }
  ),
  route<never>("OPTIONS", "/api/index/:index", Effect.as(indexName, allowMethods("OPTIONS, PUT")), {
    summary: "Allowed methods of the index creation; 400 for a bad name",
    tag
  }),
  ...[
    route("POST", "/api/index/search/:path:", forward("POST"), {
      summary: `${searchSummary}: the JSON body is forwarded as it is. POST is allowed on searches and counts only. ${accessNote}`,
      tag,
      query: { size: "page size, overriding the body", from: "offset, overriding the body", _source: "fields of the source to return" }
    }),
    route("GET", "/api/index/search/:path:", forward("GET"), {
      summary: `${searchSummary}: a body is forwarded as the \`source\` parameter (with \`source_content_type\`), replacing the other parameters. ${accessNote}`,
      tag,
      query: {
        routing: "routing of the record (accepted)",
        _source: "fields of the source to return",
        _source_excludes: "fields of the source to leave out"
      }
    }),
    route("HEAD", "/api/index/search/:path:", forward("HEAD"), {
      summary: "200 when the index exists, 404 when it does not; 403 outside the caller's projects (SERVER mode)",
      tag
    }),
    route("OPTIONS", "/api/index/search/:path:", Effect.succeed(allowMethods("OPTIONS, GET, POST, HEAD")), {
      summary: "Allowed methods of the search proxy",
      tag
    }),
    route("DELETE", "/api/index/search/:path:", notAllowed, { summary: "Not allowed: 405", tag, responseStatus: 405 }),
    route("PUT", "/api/index/search/:path:", notAllowed, { summary: "Not allowed: 405", tag, responseStatus: 405 })
  ].map(proxyRoute)
]
