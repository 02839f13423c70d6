import { Effect, Schema } from "effect"
import { Settings } from "../../config/Settings.ts"
import { BatchSearchFilter, CopyBody, PublishBody, ResultsFilter } from "../../domain/batch-search/BatchSearch.ts"
import { BatchSearches, type CreationForm } from "../../domain/batch-search/BatchSearches.ts"
import type { Viewer } from "../../domain/batch-search/BatchSearchRepo.ts"
import { requireGranted } from "../../domain/project/Access.ts"
import { allowMethods, empty, HttpRequest, json, jsonBody, pathParam, queryParam, text } from "../../transport/Http.ts"
import { BadRequest } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { route, uploadMaxBodyBytes, withBodyLimit } from "../Router.ts"

const tag = "batch search"

const viewer = Effect.gen(function* () {
  const current = yield* CurrentUser
  return { userId: current.user.id, projects: yield* current.grantedProjects } satisfies Viewer
})

/** A JSON body whose absence means `{}`. */
const optionalJsonBody = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.flatMap(HttpRequest, (request) => request.body).pipe(
    Effect.flatMap((bytes) =>
      bytes.toString("utf8").trim() === "" ? Schema.decodeUnknown(schema)({}).pipe(Effect.orDie) : jsonBody(schema)
    )
  )

/** A non-negative integer query parameter; `fallback` when absent. */
const countParam = (name: string, fallback: number) =>
  Effect.flatMap(queryParam(name), (value) => {
    if (value === undefined || value === "") return Effect.succeed(fallback)
    const parsed = Number(value)
    return Number.isSafeInteger(parsed) && parsed >= (fallback < 0 ? -1 : 0)
      ? Effect.succeed(parsed)
      : Effect.fail(new BadRequest({ message: `${name} must be a non-negative integer, not ${JSON.stringify(value)}` }))
  })

/** The multipart form of a creation: text fields, repeated list fields, and the CSV file's text. */
const creationForm = Effect.gen(function* () {
  const request = yield* HttpRequest
  const bytes = yield* request.body
  const type = request.headers["content-type"] ?? ""
  if (!type.startsWith("multipart/form-data"))
    return yield* new BadRequest({ message: "a batch search is created from a multipart/form-data form" })
  const form = yield* Effect.tryPromise({
    try: () => new Response(bytes, { headers: { "content-type": type } }).formData(),
    catch: () => new BadRequest({ message: "the multipart form cannot be read" })
  })
  const field = (name: string) => {
    const value = form.get(name)
    return typeof value === "string" ? value : undefined
  }
  const list = (name: string) => form.getAll(name).filter((value): value is string => typeof value === "string" && value !== "")
  const file = form.get("csvFile")
  const fuzziness = Number(field("fuzziness") ?? "0")
  if (!Number.isSafeInteger(fuzziness) || fuzziness < 0)
    return yield* new BadRequest({ message: "fuzziness must be a non-negative integer" })
  return {
    name: field("name"),
    description: field("description"),
    csv: file === null ? undefined : typeof file === "string" ? file : yield* Effect.promise(() => file.text()),
    published: field("published")?.toLowerCase() === "true",
    phraseMatches: field("phrase_matches")?.toLowerCase() === "true",
    fuzziness,
    fileTypes: list("fileTypes"),
    paths: list("paths"),
    tags: list("tags")
  } satisfies CreationForm
})

/** `{query: count, …}` in the order given (a plain object would put number-like queries first). */
const orderedCounts = (rows: ReadonlyArray<{ query: string; queryResults: number }>) =>
  `{${rows.map((row) => `${JSON.stringify(row.query)}:${row.queryResults}`).join(",")}}`

const batchId = pathParam("batchid")

export const batchSearchRoutes = [
  route(
    "GET",
    "/api/batch/search",
    Effect.flatMap(viewer, (who) =>
      Effect.map(
        Effect.flatMap(BatchSearches, (s) => s.list(who)),
        json
      )
    ),
    {
      summary: "The caller's batch searches and the published ones, on projects the caller may all use; newest first",
      tag
    }
  ),
  route(
    "POST",
    "/api/batch/search",
    Effect.gen(function* () {
      const filter = yield* optionalJsonBody(BatchSearchFilter)
      return json(yield* (yield* BatchSearches).filter(yield* viewer, filter))
    }),
    { summary: "A page of the visible batch searches matching the filter: {items, total}", tag, requestBody: BatchSearchFilter }
  ),
  route("OPTIONS", "/api/batch/search", Effect.succeed(allowMethods("OPTIONS, DELETE")), { summary: "Allowed methods", tag }),
  route(
    "DELETE",
    "/api/batch/search",
    Effect.gen(function* () {
      yield* (yield* BatchSearches).remove(yield* viewer)
      return empty(204)
    }),
    { summary: "Deletes every batch search of the caller (a running one excepted) with its results; idempotent", tag, responseStatus: 204 }
  ),
  route(
    "POST",
    "/api/batch/search/copy/:sourcebatchid",
    Effect.gen(function* () {
      const changes = yield* optionalJsonBody(CopyBody)
      const uuid = yield* (yield* BatchSearches).copy(yield* pathParam("sourcebatchid"), changes, yield* viewer)
      return text(uuid, "text/plain;charset=UTF-8")
    }),
    {
      summary: "Runs a batch search again for the caller, under a new id (answered as plain text); 404 for an unknown source",
      tag,
      requestBody: CopyBody
    }
  ),
  route("OPTIONS", "/api/batch/search/copy/:sourcebatchid", Effect.succeed(allowMethods("OPTIONS, POST")), {
    summary: "Allowed methods",
    tag
  }),
  route(
    "POST",
    "/api/batch/search/result/:batchid",
    Effect.gen(function* () {
      const filter = yield* optionalJsonBody(ResultsFilter)
      return json(yield* (yield* BatchSearches).results(yield* batchId, filter, yield* viewer))
    }),
    {
      summary: "Result rows of a batch search (query then rank by default); 401 when neither the caller's nor published",
      tag,
      requestBody: ResultsFilter
    }
  ),
  route(
    "GET",
    "/api/batch/search/result/csv/:batchid",
    Effect.gen(function* () {
      const uuid = yield* batchId
      const host = (yield* Settings).values.rootHost ?? (yield* HttpRequest).headers.host ?? ""
      const csv = yield* (yield* BatchSearches).resultsCsv(uuid, host, yield* viewer)
      return text(csv, "text/csv;charset=UTF-8", 200, { "Content-Disposition": `attachment;filename="${uuid}.csv"` })
    }),
    { summary: "Every result of a batch search as a CSV attachment", tag, responseContentType: "text/csv" }
  ),
  withBodyLimit(uploadMaxBodyBytes)(
    route(
      "POST",
      "/api/batch/search/:comaSeparatedProjects",
      Effect.gen(function* () {
        const projects = (yield* pathParam("comaSeparatedProjects")).split(",").filter((id) => id !== "")
        const who = yield* viewer
        yield* Effect.forEach(projects, (project) => requireGranted(project, { login: who.userId, grantedProjects: who.projects }), {
          discard: true
        })
        const uuid = yield* (yield* BatchSearches).create(projects, yield* creationForm, who.userId)
        return text(uuid, "application/json")
      }),
      {
        summary:
          "Creates a batch search from a multipart form (name, csvFile, description, published, fileTypes, paths, fuzziness, " +
          "phrase_matches) on the comma-separated projects and queues its run; answers its bare uuid. 400 without name or " +
          "csvFile, 413 at 60 000 queries or beyond 256 MiB, 403 for a project that is not the caller's",
        tag
      }
    )
  ),
  route(
    "GET",
    "/api/batch/search/:batchid",
    Effect.gen(function* () {
      const withQueries = (yield* queryParam("withQueries")) === "true"
      return json(yield* (yield* BatchSearches).get(yield* batchId, withQueries, yield* viewer))
    }),
    {
      summary: "One batch search with its options, and its queries with their result counts when withQueries=true; 404 unknown",
      tag,
      query: { withQueries: "true to list the queries" }
    }
  ),
  route(
    "GET",
    "/api/batch/search/:batchid/queries",
    Effect.gen(function* () {
      const uuid = yield* batchId
      const maxResults = yield* Effect.flatMap(queryParam("maxResults"), (plural) =>
        plural === undefined ? countParam("maxResult", -1) : countParam("maxResults", -1)
      )
      const request = {
        from: yield* countParam("from", 0),
        size: yield* countParam("size", 0),
        search: yield* queryParam("search"),
        orderBy: (yield* queryParam("orderBy")) ?? "query_number",
        maxResults
      }
      const rows = yield* (yield* BatchSearches).queries(uuid, request, yield* viewer)
      return (yield* queryParam("format")) === "csv"
        ? text(rows.map((row) => row.query).join("\n"), "text/csv;charset=UTF-8", 200, {
            "Content-Disposition": `attachment;filename="${uuid}-queries.csv"`
          })
        : text(orderedCounts(rows), "application/json;charset=UTF-8")
    }),
    {
      summary:
        "The queries of a batch search with their result counts, in CSV order (or orderBy, 500 for an unknown column); format=csv for a file",
      tag,
      query: {
        from: "first query",
        size: "number of queries (0: all)",
        search: "substring of the queries",
        orderBy: "query_number, query or query_results",
        maxResult: "largest result count kept (-1: all); maxResults too",
        format: "csv for a file"
      }
    }
  ),
  route("OPTIONS", "/api/batch/search/:batchid", Effect.succeed(allowMethods("OPTIONS, DELETE, PATCH")), {
    summary: "Allowed methods",
    tag
  }),
  route(
    "DELETE",
    "/api/batch/search/:batchid",
    Effect.gen(function* () {
      yield* (yield* BatchSearches).remove(yield* viewer, yield* batchId)
      return empty(204)
    }),
    { summary: "Deletes one of the caller's batch searches with its results, unless it is running; idempotent", tag, responseStatus: 204 }
  ),
  route(
    "PATCH",
    "/api/batch/search/:batchid",
    Effect.gen(function* () {
      const body = yield* jsonBody(PublishBody)
      yield* (yield* BatchSearches).publish(yield* batchId, body.data.published, yield* viewer)
      return empty(200)
    }),
    {
      summary: "Publishes or unpublishes one of the caller's batch searches; 404 for an unknown one or another user's",
      tag,
      requestBody: PublishBody
    }
  )
]
