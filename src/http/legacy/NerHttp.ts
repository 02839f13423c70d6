import { Effect, Schema } from "effect"
import { projectOf } from "../../domain/ingest/IngestOptions.ts"
import { startFindNames } from "../../domain/ner/FindNames.ts"
import { detectLanguage } from "../../extract/Language.ts"
import { namedEntityView, NamedEntityView } from "../../ner/NamedEntity.ts"
import { NerPool } from "../../ner/NerPool.ts"
import { entitiesOf, type NerPipeline } from "../../ner/Pipeline.ts"
import { pipelineNamed, pipelineNames, pipelines } from "../../ner/Pipelines.ts"
import { HttpRequest, json, pathParam } from "../../transport/Http.ts"
import { PayloadTooLarge } from "../../domain/RequestErrors.ts"
import { CurrentUser } from "../../domain/user/CurrentUser.ts"
import { route, withBodyLimit } from "../Router.ts"
import { TaskOptionsBody, requestOptions } from "./IndexTaskHttp.ts"
import { legacyTaskView, LegacyTaskView } from "./TaskApi.ts"

const tag = "named entities"
/**
 * Longest text `POST /api/ner/findNames` reads in one request, whatever the pipeline; each pipeline analyses at most
 * its own `maxRequestLength` (CORENLP 32 KB: 1 MB of English took 105 s).
 */
export const maxTextLength = Math.max(...pipelines.map((pipeline) => pipeline.maxRequestLength))

const pipelineParam = Effect.flatMap(pathParam("pipeline"), pipelineNamed)

/** The raw request body as text, whatever its Content-Type: 413 beyond what the pipeline analyses per request. */
const textBody = (pipeline: NerPipeline) =>
  Effect.gen(function* () {
    const text = (yield* (yield* HttpRequest).body).toString("utf8")
    if (text.length > pipeline.maxRequestLength) {
      return yield* new PayloadTooLarge({
        message: `the text to analyse has ${text.length} characters; the ${pipeline.name} pipeline analyses at most ${pipeline.maxRequestLength} per request`
      })
    }
    return text
  })

export const nerRoutes = [
  route("GET", "/api/ner/pipelines", Effect.succeed(json(pipelineNames)), {
    summary: "Names of the named-entity pipelines this server runs",
    tag,
    response: Schema.Array(Schema.String)
  }),
  // `NerPool` keeps R from being inferred as HttpRequest. Its text may be maxTextLength characters of up to 4 bytes each.
  withBodyLimit(4 * maxTextLength)(
    route<NerPool>(
      "POST",
      "/api/ner/findNames/:pipeline",
      Effect.gen(function* () {
        const pipeline = yield* pipelineParam
        const text = yield* textBody(pipeline)
        // An empty text holds no names: the reference answers [] too.
        if (text.trim() === "") return json([])
        // As in the reference: the language is guessed from the text, and a pipeline that does not read it finds nothing.
        const language = yield* detectLanguage(text)
        if (!pipeline.supports(language)) return json([])
        // A slow pipeline runs on a worker thread: its second or two of analysis does not hold other requests.
        const [annotations = []] = yield* (yield* NerPool).annotateDocuments(pipeline, [
          { content: text, contentType: "text/plain", metadata: {} }
        ])
        const entities = entitiesOf(annotations, { id: "", rootDocument: "", language }, pipeline.name)
        return json(entities.map(namedEntityView))
      }),
      {
        summary: `Named entities of the plain text in the body (any Content-Type; [] for an empty one); 400 for an unknown pipeline, 413 beyond what the pipeline analyses per request (${pipelines.map((pipeline) => `${pipeline.name} ${pipeline.maxRequestLength}`).join(", ")} characters)`,
        tag,
        response: Schema.Array(NamedEntityView)
      }
    )
  ),
  route(
    "POST",
    "/api/task/findNames/:pipeline",
    Effect.gen(function* () {
      // The pipeline is checked before the body is read, so that an unknown one is refused whatever the body.
      const pipeline = yield* pipelineParam
      const { settings, options } = yield* requestOptions
      const task = yield* startFindNames(pipeline, projectOf(options, settings.defaultProject))
      return json([legacyTaskView(task, (yield* CurrentUser).user)])
    }),
    {
      summary:
        "Starts a task running the pipeline over every document of the project not yet tagged with it (option `defaultProject`); answers [task]; 400 for an unknown pipeline, 403 for a project that is not the caller's (administrators may name any)",
      tag: "task",
      requestBody: TaskOptionsBody,
      response: Schema.Array(LegacyTaskView)
    }
  )
]
