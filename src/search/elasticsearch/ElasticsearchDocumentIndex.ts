import { Effect, Layer, Option } from "effect"
import { type BulkResult, DocumentIndex, DocumentIndexUnavailable, type IndexedDocument } from "../DocumentIndex.ts"
import { firstOfEachId } from "../indexedDocuments.ts"
import { describeFailure, ElasticsearchClient, type ElasticsearchFailure, errorType, ndjson } from "./Client.ts"
import { elasticsearchNamedEntities } from "./ElasticsearchNamedEntities.ts"
import { indexMappings, indexSettings } from "./IndexSettings.ts"
import {
  decodeStoredDocument,
  documentRouting,
  isDocumentRecord,
  documentSource,
  type DuplicateRecord,
  duplicateSource,
  toIndexedDocument
} from "./Records.ts"

/** Documents per bulk request. */
const maxDocumentsPerBulk = 500
/** Characters of content per bulk request, well under Elasticsearch's default 100 MB request limit. */
const maxContentPerBulk = 32 * 1024 * 1024

/** One bulk action line and its source line. */
interface BulkOperation {
  readonly id: string
  readonly routing: string | undefined
  readonly source: object
  readonly size: number
}

/** Splits operations into request-sized groups by count and by content size. */
const bulkGroups = (operations: ReadonlyArray<BulkOperation>) => {
  const groups: Array<Array<BulkOperation>> = []
  let current: Array<BulkOperation> = []
  let characters = 0
  for (const operation of operations) {
    if (current.length > 0 && (current.length >= maxDocumentsPerBulk || characters + operation.size > maxContentPerBulk)) {
      groups.push(current)
      current = []
      characters = 0
    }
    current.push(operation)
    characters += operation.size
  }
  if (current.length > 0) groups.push(current)
  return groups
}

/** A rejected item that retrying the batch may cure: the cluster overloaded or a shard unavailable. */
const isTransient = (status: number) => status === 429 || status >= 500

/**
 * The document index on an Elasticsearch cluster, one index per project, with the reference's settings, mapping
 * and record shapes: documents are written with op_type `create`, so a document already indexed is never
 * overwritten, and a file whose content is already indexed under another path gets a Duplicate record.
 */
export const ElasticsearchDocumentIndex = Layer.effect(
  DocumentIndex,
  Effect.gen(function* () {
    const elasticsearch = yield* ElasticsearchClient
    const unavailable = (failure: ElasticsearchFailure) => new DocumentIndexUnavailable({ reason: describeFailure(failure) })

    /**
     * Creates each operation's record unless its id exists (409); answers the ids created.
     * A record the cluster refuses (a malformed value) is logged and left out, as one bad file must not stop
     * the indexing of the others; an overloaded cluster fails the call, so that the batch is tried again.
     */
    const createAll = (project: string, operations: ReadonlyArray<BulkOperation>) =>
      Effect.gen(function* () {
        const created = new Set<string>()
        for (const group of bulkGroups(operations)) {
          const response = yield* elasticsearch
            .call((client, signal) =>
              client.bulk(
                {
                  operations: group.flatMap((operation) => [
                    {
                      create: {
                        _index: project,
                        _id: operation.id,
                        ...(operation.routing === undefined ? {} : { routing: operation.routing })
                      }
                    },
                    operation.source
                  ])
                },
                { ...ndjson, signal }
              )
            )
            .pipe(Effect.mapError(unavailable))
          for (const item of response.items) {
            const result = item.create
            if (result === undefined || typeof result._id !== "string") continue
            if (result.status === 201) created.add(result._id)
            else if (isTransient(result.status)) {
              return yield* new DocumentIndexUnavailable({
                reason: `Elasticsearch refused a write (${result.status} ${result.error?.type ?? ""})`
              })
            } else if (result.status !== 409) {
              yield* Effect.logWarning(
                `index ${project}: document ${result._id} refused: ${result.error?.type ?? result.status} ${result.error?.reason ?? ""}`
              )
            }
          }
        }
        return created
      })

    /** The stored path of each root id (realtime, so records created a moment ago are found). */
    const storedPaths = (project: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Map<string, string>())
        : elasticsearch
            .call((client, signal) =>
              client.mget<{ path?: string }>({ index: project, ids: [...ids], _source_includes: ["path"] }, { signal })
            )
            .pipe(
              Effect.map((response) => {
                const paths = new Map<string, string>()
                for (const doc of response.docs) {
                  if ("found" in doc && doc.found && typeof doc._source?.path === "string") paths.set(doc._id, doc._source.path)
                }
                return paths
              })
            )

    const createIndex = Effect.fn("DocumentIndex.createIndex")(function* (project: string) {
      return yield* elasticsearch
        .call((client, signal) => client.indices.create({ index: project, settings: indexSettings(), mappings: indexMappings }, { signal }))
        .pipe(
          Effect.as(true),
          Effect.catchIf(
            (failure) => failure._tag === "ElasticsearchResponseError" && errorType(failure.body) === "resource_already_exists_exception",
            () => Effect.succeed(false)
          ),
          Effect.mapError(unavailable)
        )
    })

    const indexExists = Effect.fn("DocumentIndex.indexExists")(function* (project: string) {
      return yield* elasticsearch
        .call((client, signal) => client.indices.exists({ index: project }, { signal }))
        .pipe(Effect.mapError(unavailable))
    })

    /**
     * A top-level file whose id is already stored under another path is recorded as a Duplicate of it (the same
     * file at the same path, indexed again, changes nothing). As with a bulk request to Elasticsearch, a missing
     * index is created on first write, with dynamic mappings: the index task creates it first, with the mapping.
     * Unlike PostgreSQL, a cluster has no transaction: a call that fails may have written part of the batch, and
     * the batch tried again finds those documents already there.
     */
    const bulkIndex = Effect.fn("DocumentIndex.bulkIndex")(function* (project: string, documents: ReadonlyArray<IndexedDocument>) {
      if (documents.length === 0) return { indexed: 0, duplicates: 0 } satisfies BulkResult
      const first = firstOfEachId(documents)
      const created = yield* createAll(
        project,
        [...first.values()].map((document) => ({
          id: document.id,
          routing: documentRouting(document),
          source: documentSource(document),
          size: document.content.length
        }))
      )

      const roots = documents.filter((document) => document.parentDocument === null)
      const isNew = (document: IndexedDocument) => first.get(document.id) === document && created.has(document.id)
      const stored = yield* storedPaths(project, [...new Set(roots.filter((root) => !isNew(root)).map((root) => root.id))]).pipe(
        Effect.mapError(unavailable)
      )
      const duplicates = new Map<string, DuplicateRecord>()
      for (const root of roots) {
        if (isNew(root) || (stored.get(root.id) ?? first.get(root.id)?.path) === root.path) continue
        const id = root.duplicateId ?? root.id
        duplicates.set(`${id}\0${root.path}`, { id, path: root.path, documentId: root.id })
      }
      const recorded =
        duplicates.size === 0
          ? new Set<string>()
          : yield* createAll(
              project,
              [...duplicates.values()].map((duplicate) => ({
                id: duplicate.id,
                routing: duplicate.documentId,
                source: duplicateSource(duplicate),
                size: 0
              }))
            )
      return { indexed: created.size, duplicates: recorded.size } satisfies BulkResult
    })

    /**
     * Elasticsearch finds a record by id on the routed shard; the routing must also be the document's root, as the
     * interface says. Other records (Duplicate, NamedEntity) are not documents.
     */
    const get = Effect.fn("DocumentIndex.get")(function* (project: string, id: string, routing?: string) {
      const response = yield* elasticsearch
        .call((client, signal) =>
          client.get<unknown>({ index: project, id, ...(routing === undefined ? {} : { routing }) }, { ignore: [404], signal })
        )
        .pipe(Effect.mapError(unavailable))
      if (!response.found || !isDocumentRecord(response._source)) return Option.none()
      const decoded = yield* Effect.either(decodeStoredDocument(response._source))
      if (decoded._tag === "Left") {
        yield* Effect.logWarning(`index ${project}: document ${id} is not readable: ${decoded.left.message}`)
        return Option.none()
      }
      const document = toIndexedDocument(id, response._routing ?? undefined, decoded.right)
      return routing === undefined || document.rootDocument === routing ? Option.some(document) : Option.none()
    })

    const count = Effect.fn("DocumentIndex.count")(function* (project: string) {
      const response = yield* elasticsearch
        .call((client, signal) => client.count({ index: project, query: { term: { type: "Document" } } }, { ignore: [404], signal }))
        .pipe(Effect.mapError(unavailable))
      return typeof response.count === "number" ? response.count : 0
    })

    /** Ids of the project's documents among `ids` (realtime). */
    const documentIds = (project: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyArray<string>>([])
        : elasticsearch
            .call((client, signal) =>
              client.search(
                {
                  index: project,
                  size: ids.length,
                  _source: false,
                  query: { bool: { filter: [{ ids: { values: [...ids] } }, { term: { type: "Document" } }] } }
                },
                { ignore: [404], signal }
              )
            )
            .pipe(
              Effect.map((response) => (response.hits?.hits ?? []).flatMap((hit) => (typeof hit._id === "string" ? [hit._id] : []))),
              Effect.mapError(unavailable)
            )

    /**
     * Runs a painless script over the documents found, refreshing so that searches see the change at once; the
     * ids found are the answer.
     */
    const updateTags = (project: string, ids: ReadonlyArray<string>, tags: ReadonlyArray<string>, source: string) =>
      Effect.gen(function* () {
        const found = yield* documentIds(project, ids)
        if (found.length === 0 || tags.length === 0) return found
        yield* elasticsearch
          .call((client, signal) =>
            client.updateByQuery(
              {
                index: project,
                refresh: true,
                conflicts: "proceed",
                query: { ids: { values: [...found] } },
                script: { source, params: { tags: [...tags] } }
              },
              { signal }
            )
          )
          .pipe(Effect.mapError(unavailable))
        return found
      })

    const addTags = Effect.fn("DocumentIndex.addTags")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>
    ) {
      return yield* updateTags(
        project,
        ids,
        tags,
        "if (ctx._source.tags == null) { ctx._source.tags = [] } for (t in params.tags) { if (!ctx._source.tags.contains(t)) { ctx._source.tags.add(t) } }"
      )
    })

    const removeTags = Effect.fn("DocumentIndex.removeTags")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>
    ) {
      return yield* updateTags(project, ids, tags, "if (ctx._source.tags != null) { ctx._source.tags.removeAll(params.tags) }")
    })

    const deleteIndex = Effect.fn("DocumentIndex.deleteIndex")(function* (project: string) {
      yield* elasticsearch
        .call((client, signal) => client.indices.delete({ index: project }, { ignore: [404], signal }))
        .pipe(Effect.mapError(unavailable))
    })

    // A bulk request leaves nothing for later; Elasticsearch merges its segments and keeps its statistics itself.
    const finishWrites = () => Effect.void
    const refresh = () => Effect.void

    return DocumentIndex.of({
      createIndex,
      indexExists,
      bulkIndex,
      get,
      count,
      addTags,
      removeTags,
      finishWrites,
      refresh,
      deleteIndex,
      ...elasticsearchNamedEntities(elasticsearch, unavailable)
    })
  })
)
