import { randomUUID } from "node:crypto"
import { Chunk, Clock, Effect, Metric, Option, Stream } from "effect"
import { inTransaction } from "../../db/SqlFailure.ts"
import { holdsNul, nulRefusal } from "../../db/Nul.ts"
import { Engine } from "../../engine/Engine.ts"
import { BatchSearchJob } from "../../engine/kinds/BatchSearchJob.ts"
import { projectFromName, toLegacyProject } from "../project/Project.ts"
import { ProjectRepo } from "../project/ProjectRepo.ts"
import {
  batchSearchDetails,
  batchSearchRecord,
  type BatchSearchFilter,
  type BatchSearchRow,
  type NewBatchSearch,
  queryColumns,
  resultRecord,
  type ResultsFilter
} from "./BatchSearch.ts"
import { maxQueries, parseQueries, resultsCsvHeader, resultsCsvLine, usableQueries } from "./BatchSearchCsv.ts"
import {
  BatchSearchForbidden,
  BatchSearchNotFound,
  BatchSearchNotShared,
  InvalidBatchSearch,
  TooManyQueries,
  UnknownQueryColumn
} from "./BatchSearchErrors.ts"
import { BatchSearchRepo, type ResultKey, type ResultSelection, type Viewer } from "./BatchSearchRepo.ts"

/** How often a followed results stream looks for the results of a running batch search. */
const followInterval = "200 millis"

/** Pages of results read for results streams, so that operators (and tests) see a cancelled stream stop reading. */
export const resultPagesRead = Metric.counter("quarry_batch_search_result_pages_read", {
  description: "pages of batch-search results read from the database for results streams",
  incremental: true
})

/** The options of a new batch search, as the legacy creation form and the RPC API give them. */
export interface BatchSearchOptions {
  readonly name: string | undefined
  readonly description: string | undefined
  readonly published: boolean
  readonly phraseMatches: boolean
  readonly fuzziness: number
  readonly fileTypes: ReadonlyArray<string>
  readonly paths: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
}

/** A creation request: the multipart form of POST /api/batch/search/:projects, read. */
export interface CreationForm extends BatchSearchOptions {
  readonly csv: string | undefined
}

/** The query listing's parameters (GET /api/batch/search/:id/queries). */
export interface QueriesRequest {
  readonly from: number
  readonly size: number
  readonly search: string | undefined
  readonly orderBy: string
  readonly maxResults: number
}

/** Batch searches: creation from a CSV, copies, listings with the reference's visibility rule, results, deletion. */
export class BatchSearches extends Effect.Service<BatchSearches>()("quarry/BatchSearches", {
  effect: Effect.gen(function* () {
    const repo = yield* BatchSearchRepo
    const projectRepo = yield* ProjectRepo
    const engine = yield* Engine

    /** Project objects of a batch search, from their rows or (no row) from their names, sorted by name. */
    const projectsOf = (ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const rows = new Map((yield* projectRepo.listIn(ids)).map((row) => [row.id, toLegacyProject(row)] as const))
        const now = new Date(yield* Clock.currentTimeMillis)
        return [...ids].sort().map((id) => rows.get(id) ?? projectFromName(id, now))
      })

    const record = (row: BatchSearchRow) => Effect.map(projectsOf(row.projects), (projects) => batchSearchRecord(row, projects))

    /** Stores the batch search and queues its run in one transaction: no batch search is left without its task. */
    const save = (search: NewBatchSearch) =>
      inTransaction(
        Effect.gen(function* () {
          const uuid = randomUUID()
          yield* repo.insert(uuid, search)
          yield* engine.submit(BatchSearchJob, { uuid }, { userId: search.userId, id: uuid })
          return uuid
        })
      )

    /** A batch search of a list of queries (the RPC API's creation; a CSV's lines for the legacy form). */
    const createFromQueries = Effect.fn("BatchSearches.createFromQueries")(function* (
      projects: ReadonlyArray<string>,
      options: BatchSearchOptions,
      candidates: ReadonlyArray<string>,
      userId: string
    ) {
      if (options.name === undefined || options.name.trim() === "") return yield* new InvalidBatchSearch({ reason: "name is required" })
      if (projects.length === 0) return yield* new InvalidBatchSearch({ reason: "at least one project is required" })
      if (holdsNul([options, candidates])) return yield* new InvalidBatchSearch({ reason: nulRefusal })
      const queries = usableQueries(candidates)
      if (queries.length >= maxQueries) return yield* new TooManyQueries({ count: queries.length, limit: maxQueries })
      if (queries.length === 0)
        return yield* new InvalidBatchSearch({ reason: "the batch search holds no query of two characters or more" })
      const { name, description, ...rest } = options
      return yield* save({ ...rest, name, description: description ?? "", userId, projects, queries })
    })

    const create = Effect.fn("BatchSearches.create")(function* (projects: ReadonlyArray<string>, form: CreationForm, userId: string) {
      const { csv, ...options } = form
      // A missing name is reported before a missing file, as the reference does.
      if (csv === undefined && options.name !== undefined && options.name.trim() !== "")
        return yield* new InvalidBatchSearch({ reason: "csvFile is required" })
      return yield* createFromQueries(projects, options, parseQueries(csv ?? "", form.phraseMatches), userId)
    })

    /** A new run of another batch search, for the caller, with its queries and options (name and description may change). */
    const copy = Effect.fn("BatchSearches.copy")(function* (
      uuid: string,
      changes: { readonly name?: string | undefined; readonly description?: string | undefined },
      viewer: Viewer
    ) {
      const source = yield* visible(uuid, viewer)
      const queries = (yield* repo.queries(uuid, { from: 0, size: 0, orderBy: "query_number", maxResults: -1 })).map((row) => row.query)
      return yield* save({
        name: changes.name ?? source.name,
        description: changes.description ?? source.description,
        userId: viewer.userId,
        published: source.published,
        phraseMatches: source.phraseMatches,
        fuzziness: source.fuzziness,
        fileTypes: source.fileTypes,
        paths: source.paths,
        tags: source.tags,
        projects: source.projects,
        queries
      })
    })

    /** 403 unless the viewer may use every project of the batch search, as lists show only those (issue 22). */
    const requireProjects = (row: BatchSearchRow, viewer: Viewer) =>
      row.projects.every((project) => viewer.projects.includes(project))
        ? Effect.succeed(row)
        : Effect.fail(new BatchSearchForbidden({ uuid: row.uuid }))

    /**
     * A batch search its owner, or anyone once published, may read; 404 otherwise, as if it did not exist. 403 when
     * one of its projects is not the viewer's.
     */
    const visible = (uuid: string, viewer: Viewer) =>
      repo.find(uuid).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new BatchSearchNotFound({ uuid })), onSome: Effect.succeed })),
        Effect.filterOrFail(
          (row) => row.userId === viewer.userId || row.published,
          () => new BatchSearchNotFound({ uuid })
        ),
        Effect.flatMap((row) => requireProjects(row, viewer))
      )

    const list = Effect.fn("BatchSearches.list")(function* (viewer: Viewer) {
      return yield* Effect.forEach(yield* repo.listVisible(viewer), record)
    })

    /** The filtered page; a `project` filter narrows the projects a batch search may be on. */
    const filter = Effect.fn("BatchSearches.filter")(function* (viewer: Viewer, request: BatchSearchFilter) {
      const narrowed = (request.project ?? []).length > 0 ? viewer.projects.filter((id) => request.project?.includes(id)) : viewer.projects
      const page = yield* repo.filter({ ...viewer, projects: narrowed }, request)
      return { items: yield* Effect.forEach(page.items, record), total: page.total }
    })

    const get = Effect.fn("BatchSearches.get")(function* (uuid: string, withQueries: boolean, viewer: Viewer) {
      const row = yield* visible(uuid, viewer)
      const queries = withQueries ? yield* repo.queries(uuid, { from: 0, size: 0, orderBy: "query_number", maxResults: -1 }) : []
      return batchSearchDetails(row, yield* projectsOf(row.projects), Object.fromEntries(queries.map((q) => [q.query, q.queryResults])))
    })

    /** Queries with their result counts; an unknown batch search has none. */
    const queries = Effect.fn("BatchSearches.queries")(function* (uuid: string, request: QueriesRequest, viewer: Viewer) {
      if (!(queryColumns as ReadonlyArray<string>).includes(request.orderBy))
        return yield* new UnknownQueryColumn({ column: request.orderBy })
      const known = yield* visible(uuid, viewer).pipe(
        Effect.asSome,
        Effect.catchTag("BatchSearchNotFound", () => Effect.succeedNone)
      )
      return Option.isNone(known) ? [] : yield* repo.queries(uuid, request)
    })

    /** Results of a batch search its owner or (published) anyone of its projects may see; an unknown one has none. */
    const readableResults = (uuid: string, viewer: Viewer) =>
      Effect.gen(function* () {
        const found = yield* repo.find(uuid)
        if (Option.isNone(found)) return found
        if (found.value.userId !== viewer.userId && !found.value.published) return yield* new BatchSearchNotShared({ uuid })
        yield* requireProjects(found.value, viewer)
        return found
      })

    const results = Effect.fn("BatchSearches.results")(function* (uuid: string, request: ResultsFilter, viewer: Viewer) {
      const found = yield* readableResults(uuid, viewer)
      return Option.isNone(found) ? [] : (yield* repo.results(uuid, request)).map(resultRecord)
    })

    /**
     * Results as a stream read page by page from the database, in query then rank order. With `follow`, the
     * stream of a batch search still queued or running waits for the results its run stores and ends with it.
     */
    const resultStream = Effect.fn("BatchSearches.resultStream")(function* (
      uuid: string,
      selection: ResultSelection,
      viewer: Viewer,
      options: { readonly pageSize: number; readonly follow: boolean }
    ) {
      if (Option.isNone(yield* readableResults(uuid, viewer))) return yield* new BatchSearchNotFound({ uuid })
      const running = Effect.map(
        repo.find(uuid),
        Option.exists((row) => row.state === "QUEUED" || row.state === "RUNNING")
      )
      const page = (after: ResultKey | undefined) =>
        Effect.gen(function* () {
          for (;;) {
            // Read before the page: a run that had ended then has stored every result the page may hold.
            const wasRunning = options.follow && (yield* running)
            const rows = yield* repo.resultPage(uuid, selection, after, options.pageSize)
            yield* Metric.increment(resultPagesRead)
            const last = rows.at(-1)
            const next = last === undefined ? after : { queryNumber: last.queryNumber, docNb: last.docNb }
            const records = Chunk.fromIterable(rows.map(resultRecord))
            if (rows.length === options.pageSize || (wasRunning && rows.length > 0)) return [records, Option.some(next)] as const
            if (!wasRunning) return [records, Option.none()] as const
            yield* Effect.sleep(followInterval)
          }
        })
      return Stream.paginateChunkEffect<ResultKey | undefined, ReturnType<typeof resultRecord>, never, never>(undefined, page)
    })

    /** The results CSV; `host` starts each document's link. */
    const resultsCsv = Effect.fn("BatchSearches.resultsCsv")(function* (uuid: string, host: string, viewer: Viewer) {
      const found = yield* readableResults(uuid, viewer)
      if (Option.isNone(found)) return yield* new BatchSearchNotFound({ uuid })
      const rows = yield* repo.results(uuid, {})
      return resultsCsvHeader + rows.map((row) => resultsCsvLine(row, host, found.value.projects)).join("")
    })

    /** 403 when the viewer sees the batch search (their own or published) and one of its projects is not theirs. */
    const requireProjectsOf = (uuid: string, viewer: Viewer) =>
      Effect.flatMap(
        repo.find(uuid),
        Option.match({
          onNone: () => Effect.void,
          onSome: (row) => (row.userId === viewer.userId || row.published ? Effect.asVoid(requireProjects(row, viewer)) : Effect.void)
        })
      )

    const publish = Effect.fn("BatchSearches.publish")(function* (uuid: string, published: boolean, viewer: Viewer) {
      yield* requireProjectsOf(uuid, viewer)
      if (!(yield* repo.setPublished(uuid, viewer.userId, published))) return yield* new BatchSearchNotFound({ uuid })
    })

    /** Deletes the caller's batch search (or all of them), never a running one; deleting what is gone is no error. */
    const remove = Effect.fn("BatchSearches.remove")(function* (viewer: Viewer, uuid?: string) {
      if (uuid !== undefined) yield* requireProjectsOf(uuid, viewer)
      return (yield* repo.remove(viewer.userId, uuid)).length
    })

    return { create, createFromQueries, copy, list, filter, get, queries, results, resultStream, resultsCsv, publish, remove }
  })
}) {}
