import { Effect, Option } from "effect"
import { namedEntityView, NamedEntityView } from "../../ner/NamedEntity.ts"
import { DocumentIndex } from "../../search/DocumentIndex.ts"
import { allowMethods, empty, json, pathParam, queryParam } from "../../transport/Http.ts"
import { Forbidden, NotFound } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { publicRoute, route } from "../Router.ts"

const tag = "named entities"
const hidePath = "/api/:project/namedEntities/hide/:mentionNorm"

/** The `:project` of the path, once the caller is known to have access to it. */
const grantedProject = Effect.gen(function* () {
  const project = yield* pathParam("project")
  const granted = yield* (yield* CurrentUser).grantedProjects
  if (!granted.includes(project)) return yield* new Forbidden({ message: `no access to project ${project}` })
  return project
})

export const namedEntityRoutes = [
  route(
    "GET",
    "/api/:project/namedEntities/:id",
    Effect.gen(function* () {
      const project = yield* grantedProject
      const id = yield* pathParam("id")
      const found = yield* (yield* DocumentIndex).getNamedEntity(project, id, yield* queryParam("routing"))
      if (Option.isNone(found)) return yield* new NotFound({ message: `named entity ${id} not found in ${project}` })
      return json(namedEntityView(found.value))
    }),
    {
      summary: "A named entity of the project by id; 404 when absent (or not under that routing); 403 without access to the project",
      tag,
      query: { routing: "id of the root document of the document the entity was found in" },
      response: NamedEntityView
    }
  ),
  publicRoute("OPTIONS", hidePath, Effect.succeed(allowMethods("OPTIONS, PUT")), { summary: `Methods allowed on ${hidePath}`, tag }),
  route(
    "PUT",
    hidePath,
    Effect.gen(function* () {
      const project = yield* grantedProject
      yield* (yield* DocumentIndex).hideNamedEntities(project, yield* pathParam("mentionNorm"))
      return empty(200)
    }),
    {
      summary:
        "Hides every named entity of the project with that normalised mention (200 also when none matched); 403 without access to the project",
      tag
    }
  )
]
