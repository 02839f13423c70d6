import { Chunk, Effect, Option, Schema, Stream } from "effect"
import { Settings } from "../config/Settings.ts"
import { startFindNames } from "../domain/ner/FindNames.ts"
import { requireGranted } from "../domain/project/Access.ts"
import { namedEntityView } from "../ner/NamedEntity.ts"
import { pipelineNamed, pipelineNames } from "../ner/Pipelines.ts"
import { DocumentIndex } from "../search/DocumentIndex.ts"
import { maxResultWindow, SearchBackend } from "../search/SearchBackend.ts"
import { DocumentNamedEntity, NamedEntityNotFound, NamedEntityRpcs } from "./NamedEntityRpcs.ts"
import type { RpcCallers } from "./Caller.ts"

/** What the entity listing reads of a search response. */
const SearchHits = Schema.Struct({
  hits: Schema.Struct({
    hits: Schema.Array(Schema.Struct({ _id: Schema.String, _source: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
  })
})

const decodeHits = Schema.decodeUnknown(SearchHits)
const decodeEntity = Schema.decodeUnknown(DocumentNamedEntity)

/** The ES query of a document's entities, as the front end asks the index proxy for them. */
const entitiesQuery = (documentId: string, categories: ReadonlyArray<string>, includeHidden: boolean) => ({
  bool: {
    filter: [
      { term: { type: "NamedEntity" } },
      { parent_id: { type: "NamedEntity", id: documentId } },
      ...(categories.length > 0 ? [{ terms: { category: categories } }] : []),
      ...(includeHidden ? [] : [{ term: { isHidden: false } }])
    ]
  }
})

/**
 * The named-entity RPCs: findNames tasks started as POST /api/task/findNames starts them; a document's
 * entities through the search backend, as the front end reads them, a page at a time (the listing ends at the
 * backend's result window, 10 000 entities); one entity and hiding through the document index, as
 * /api/:project/namedEntities does.
 */
export const namedEntityRpcHandlers = (callers: RpcCallers) =>
  NamedEntityRpcs.toLayer(
    Effect.gen(function* () {
      const settings = yield* Settings
      const backend = yield* SearchBackend
      const index = yield* DocumentIndex

      const entityPage = (project: string, query: unknown, routing: string | undefined, from: number, size: number) =>
        Effect.gen(function* () {
          const response = yield* backend.handle({
            method: "POST",
            path: `${project}/_search`,
            query: new URLSearchParams(routing === undefined ? {} : { routing }),
            body: { query, sort: [{ mentionNorm: "asc" }, { offsets: "asc" }, { extractor: "asc" }], from, size }
          })
          // An index not created yet has no entities; any other refusal is a fault of this query.
          if (response.status === 404) return []
          if (response.status !== 200)
            return yield* Effect.dieMessage(`entity search answered ${response.status}: ${JSON.stringify(response.body)}`)
          const { hits } = yield* decodeHits(response.body)
          return yield* Effect.forEach(hits.hits, (hit) => decodeEntity({ ...hit._source, id: hit._id }))
        }).pipe(Effect.orDie)

      return {
        nerPipelines: () => Effect.succeed(pipelineNames),
        findNames: ({ pipeline, project }, { headers }) =>
          callers.asCaller(
            headers,
            Effect.flatMap(pipelineNamed(pipeline), (found) => startFindNames(found, project ?? settings.defaultProject))
          ),
        documentNamedEntities: ({ project, documentId, routing, categories, includeHidden, pageSize }, { headers }) =>
          Effect.gen(function* () {
            const { editor } = yield* callers.caller(headers)
            // As GET /api/:project/namedEntities/:id: reading needs the project granted, administrators included.
            yield* requireGranted(project, editor)
            const size = pageSize ?? 500
            const query = entitiesQuery(documentId, categories ?? [], includeHidden ?? false)
            return Stream.paginateChunkEffect(0, (from) =>
              Effect.map(entityPage(project, query, routing, from, Math.min(size, maxResultWindow - from)), (entities) => {
                const next = from + entities.length
                const more = entities.length === size && next < maxResultWindow
                return [Chunk.fromIterable(entities), more ? Option.some(next) : Option.none()] as const
              })
            )
          }).pipe(Stream.unwrap),
        getNamedEntity: ({ project, id, routing }, { headers }) =>
          Effect.gen(function* () {
            yield* requireGranted(project, (yield* callers.caller(headers)).editor)
            const found = yield* index.getNamedEntity(project, id, routing)
            if (Option.isNone(found)) return yield* new NamedEntityNotFound({ project, id })
            return { id: found.value.id, ...namedEntityView(found.value) }
          }).pipe(Effect.catchTag("DocumentIndexUnavailable", Effect.die)),
        hideNamedEntities: ({ project, mentionNorm }, { headers }) =>
          Effect.gen(function* () {
            yield* requireGranted(project, (yield* callers.caller(headers)).editor)
            return yield* index.hideNamedEntities(project, mentionNorm)
          }).pipe(Effect.catchTag("DocumentIndexUnavailable", Effect.die))
      }
    })
  )
