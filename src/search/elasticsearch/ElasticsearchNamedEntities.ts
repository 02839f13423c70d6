import { Effect, Option, Schema } from "effect"
import { Category, type NamedEntity } from "../../ner/NamedEntity.ts"
import { DocumentIndexUnavailable, type NerSource } from "../DocumentIndex.ts"
import { type ElasticsearchClientShape, type ElasticsearchFailure, ndjson } from "./Client.ts"

/** The `_source` of a NamedEntity record: a join child of the document it was found in. */
export const namedEntitySource = (entity: NamedEntity) => ({
  type: "NamedEntity",
  join: { name: "NamedEntity", parent: entity.documentId },
  mention: entity.mention,
  mentionNorm: entity.mentionNorm,
  mentionNormTextLength: entity.mentionNormTextLength,
  category: entity.category,
  offsets: entity.offsets,
  extractor: entity.extractor,
  extractorLanguage: entity.extractorLanguage,
  isHidden: entity.isHidden,
  partsOfSpeech: entity.partsOfSpeech
})

const StoredEntity = Schema.Struct({
  type: Schema.Literal("NamedEntity"),
  join: Schema.Struct({ parent: Schema.String }),
  mention: Schema.String,
  mentionNorm: Schema.String,
  mentionNormTextLength: Schema.Number,
  category: Category,
  offsets: Schema.Array(Schema.Number),
  extractor: Schema.String,
  extractorLanguage: Schema.String,
  isHidden: Schema.optionalWith(Schema.Boolean, { default: () => false, nullable: true }),
  partsOfSpeech: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
const decodeStoredEntity = Schema.decodeUnknownOption(StoredEntity)

const StoredSource = Schema.Struct({
  content: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  language: Schema.optionalWith(Schema.String, { default: () => "ENGLISH", nullable: true }),
  contentType: Schema.optionalWith(Schema.String, { default: () => "unknown", nullable: true }),
  // Only text values are headers a pipeline may read; others are left out.
  metadata: Schema.optionalWith(
    Schema.transform(
      Schema.Record({ key: Schema.String, value: Schema.Unknown }),
      Schema.Record({ key: Schema.String, value: Schema.String }),
      {
        strict: true,
        decode: (values) =>
          Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === "string")),
        encode: (values) => values
      }
    ),
    { default: () => ({}), nullable: true }
  ),
  parentDocument: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  rootDocument: Schema.optionalWith(Schema.String, { nullable: true }),
  nerTags: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [], nullable: true })
})
const decodeStoredSource = Schema.decodeUnknownOption(StoredSource)

/** Documents whose nerTags lack the pipeline. */
const withoutTag = (pipeline: string) => ({
  bool: { filter: [{ term: { type: "Document" } }], must_not: [{ term: { nerTags: pipeline } }] }
})

/** The named-entity side of the Elasticsearch document index; writes refresh so that the next read sees them. */
export const elasticsearchNamedEntities = (
  elasticsearch: ElasticsearchClientShape,
  unavailable: (failure: ElasticsearchFailure) => DocumentIndexUnavailable
) => {
  /** Sends bulk operations; an item refused for another reason than an existing id fails the call. */
  const bulk = (operations: ReadonlyArray<object>, action: "create" | "update") =>
    elasticsearch
      .call((client, signal) => client.bulk({ refresh: true, operations: [...operations] }, { ...ndjson, signal }))
      .pipe(
        Effect.mapError(unavailable),
        Effect.flatMap((response) => {
          const refused = response.items
            .map((item) => item[action])
            .find((result) => result !== undefined && result.status >= 300 && result.status !== 409)
          return refused === undefined
            ? Effect.succeed(response.items.filter((item) => item[action]?.status === 201).length)
            : Effect.fail(
                new DocumentIndexUnavailable({ reason: `Elasticsearch refused a write (${refused.status} ${refused.error?.type ?? ""})` })
              )
        })
      )

  const documentsWithoutNerTag = Effect.fn("DocumentIndex.documentsWithoutNerTag")(function* (
    project: string,
    pipeline: string,
    _after: string,
    limit: number
  ) {
    const response = yield* elasticsearch
      .call((client, signal) =>
        client.search<unknown>(
          {
            index: project,
            size: limit,
            query: withoutTag(pipeline),
            _source: ["content", "language", "contentType", "metadata", "parentDocument", "rootDocument", "nerTags"]
          },
          { ignore: [404], signal }
        )
      )
      .pipe(Effect.mapError(unavailable))
    return (response.hits?.hits ?? []).flatMap((hit): ReadonlyArray<NerSource> => {
      const source = decodeStoredSource(hit._source)
      if (Option.isNone(source) || typeof hit._id !== "string") return []
      const { rootDocument, ...rest } = source.value
      return [{ id: hit._id, rootDocument: rootDocument ?? hit._routing ?? hit._id, ...rest }]
    })
  })

  const countWithoutNerTag = Effect.fn("DocumentIndex.countWithoutNerTag")(function* (project: string, pipeline: string) {
    const response = yield* elasticsearch
      .call((client, signal) => client.count({ index: project, query: withoutTag(pipeline) }, { ignore: [404], signal }))
      .pipe(Effect.mapError(unavailable))
    return typeof response.count === "number" ? response.count : 0
  })

  const bulkIndexNamedEntities = Effect.fn("DocumentIndex.bulkIndexNamedEntities")(function* (
    project: string,
    entities: ReadonlyArray<NamedEntity>
  ) {
    if (entities.length === 0) return 0
    return yield* bulk(
      entities.flatMap((entity) => [
        { create: { _index: project, _id: entity.id, routing: entity.rootDocument } },
        namedEntitySource(entity)
      ]),
      "create"
    )
  })

  const markNerTagged = Effect.fn("DocumentIndex.markNerTagged")(function* (
    project: string,
    documents: ReadonlyArray<NerSource>,
    pipeline: string
  ) {
    if (documents.length === 0) return
    yield* bulk(
      documents.flatMap((document) => [
        { update: { _index: project, _id: document.id, ...(document.parentDocument === null ? {} : { routing: document.rootDocument }) } },
        { doc: { status: "DONE", nerTags: document.nerTags.includes(pipeline) ? document.nerTags : [...document.nerTags, pipeline] } }
      ]),
      "update"
    )
  })

  const getNamedEntity = Effect.fn("DocumentIndex.getNamedEntity")(function* (project: string, id: string, routing?: string) {
    const response = yield* elasticsearch
      .call((client, signal) =>
        client.get<unknown>({ index: project, id, ...(routing === undefined ? {} : { routing }) }, { ignore: [404], signal })
      )
      .pipe(Effect.mapError(unavailable))
    if (!response.found) return Option.none()
    return Option.map(decodeStoredEntity(response._source), ({ type: _type, join, ...stored }): NamedEntity => ({
      ...stored,
      id,
      documentId: join.parent,
      rootDocument: response._routing ?? join.parent
    }))
  })

  const hideNamedEntities = Effect.fn("DocumentIndex.hideNamedEntities")(function* (project: string, mentionNorm: string) {
    const response = yield* elasticsearch
      .call((client, signal) =>
        client.updateByQuery(
          {
            index: project,
            refresh: true,
            conflicts: "proceed",
            query: { bool: { filter: [{ term: { type: "NamedEntity" } }, { term: { mentionNorm } }] } },
            script: { source: "ctx._source.isHidden = true" }
          },
          { ignore: [404], signal }
        )
      )
      .pipe(Effect.mapError(unavailable))
    return response.updated ?? 0
  })

  return { documentsWithoutNerTag, countWithoutNerTag, bulkIndexNamedEntities, markNerTagged, getNamedEntity, hideNamedEntities }
}
