import { Effect, Schema } from "effect"
import { LegacyProject, ProjectInput } from "../../domain/project/Project.ts"
import { Projects } from "../../domain/project/Projects.ts"
import { allowMethods, empty, HttpRequest, json, jsonBody, pathParam } from "../../transport/Http.ts"
import { publicRoute, route } from "../Router.ts"
import { projectCaller } from "../../domain/project/Access.ts"

const tag = "projects"
const writeNote = "in SERVER mode only administrators may change projects (403)"

export const projectRoutes = [
  route(
    "GET",
    "/api/project",
    Effect.gen(function* () {
      return json(yield* (yield* Projects).list(yield* projectCaller))
    }),
    { summary: "The stored projects among the caller's", tag, response: Schema.Array(LegacyProject) }
  ),
  route(
    "POST",
    "/api/project",
    Effect.gen(function* () {
      const input = yield* jsonBody(ProjectInput)
      return json(yield* (yield* Projects).create(input, yield* projectCaller), 201)
    }),
    {
      summary:
        "Creates a project and its index: 201 with the project; 400 without name, with an invalid name, or with a sourcePath " +
        `missing or outside dataDir; 409 when it exists; ${writeNote}`,
      tag,
      requestBody: ProjectInput,
      response: LegacyProject,
      responseStatus: 201
    }
  ),
  route(
    "GET",
    "/api/project/isDownloadAllowed/:id",
    Effect.gen(function* () {
      const request = yield* HttpRequest
      yield* (yield* Projects).checkDownload(yield* pathParam("id"), request.remoteAddress, yield* projectCaller)
      return empty()
    }),
    {
      summary:
        "200 when the client address matches the project's allow_from_mask (no mask, or `*`, allows all; one `*` per octet; " +
        "IPv6-mapped IPv4 addresses count as IPv4), else 403 Download not allowed; in SERVER mode 403 for a project outside the caller's",
      tag
    }
  ),
  route(
    "GET",
    "/api/project/:id",
    Effect.gen(function* () {
      return json(yield* (yield* Projects).get(yield* pathParam("id"), yield* projectCaller))
    }),
    {
      summary: "A stored project; 404 Project not found; in SERVER mode 403 for a project outside the caller's",
      tag,
      response: LegacyProject
    }
  ),
  route(
    "PUT",
    "/api/project/:id",
    Effect.gen(function* () {
      const input = yield* jsonBody(ProjectInput)
      return json(yield* (yield* Projects).update(yield* pathParam("id"), input, yield* projectCaller))
    }),
    {
      summary:
        "Replaces a project's label, description, publisherName, maintainerName, logoUrl and sourceUrl (the mask and sourcePath stay); " +
        `404 when it is not stored or the body's name differs from the id; 400 for a field too long; ${writeNote}`,
      tag,
      requestBody: ProjectInput,
      response: LegacyProject
    }
  ),
  publicRoute("OPTIONS", "/api/project/:id", Effect.succeed(allowMethods("OPTIONS, DELETE")), {
    summary: "Methods allowed on a project",
    tag
  }),
  route(
    "DELETE",
    "/api/project/:id",
    Effect.gen(function* () {
      yield* (yield* Projects).remove(yield* pathParam("id"), yield* projectCaller)
      return empty(204)
    }),
    {
      summary:
        "Deletes a project in one transaction: its stars, tags, recommendations, notes, history links, queued files, its row and " +
        `its index (documents and duplicates); 204; 401 when it is not one of the caller's projects; ${writeNote}`,
      tag,
      responseStatus: 204
    }
  )
]
