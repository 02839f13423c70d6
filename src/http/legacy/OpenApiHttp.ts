import { Effect } from "effect"
import { type HttpResponse } from "../../transport/Http.ts"
import { type DocumentedRoute, openApiDocument } from "../OpenApi.ts"
import { route } from "../Router.ts"

const info = { title: "Quarry: the document search service's legacy HTTP API", version: "1.0" }

/**
 * GET /api/openapi, describing the whole route table. The table is given as a function because this route is
 * part of it; the document is built on first use, when the table is complete, and kept.
 */
export const openApiRoutes = (table: () => ReadonlyArray<DocumentedRoute>) => {
  let document: HttpResponse | undefined
  return [
    route(
      "GET",
      "/api/openapi",
      Effect.sync(
        (): HttpResponse =>
          (document ??= {
            status: 200,
            headers: {},
            body: { _tag: "Json", value: openApiDocument(table(), info), contentType: "text/json" }
          })
      ),
      { summary: "This description of the API, in OpenAPI 3.0", tag: "application", responseContentType: "text/json" }
    )
  ]
}
