import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option } from "effect"
import { SearchBackend } from "../../search/SearchBackend.ts"
import { BatchSearchNotFound } from "../batch-search/BatchSearchErrors.ts"
import { BatchSearchRepo } from "../batch-search/BatchSearchRepo.ts"
import { DocumentMarks, maxDocumentIds } from "../document/DocumentMarks.ts"
import { attributeAutomatically } from "../review/Attribution.ts"
import { dieOnSqlError } from "../../db/SqlFailure.ts"
import { renderLink } from "../review/LinkTemplate.ts"
import { settingValue } from "../review/ReviewSettings.ts"
import { bestPassages } from "./Passages.ts"
import type {
  BridgeCaller,
  FromBatchSearchRequest,
  FromBatchSearchResult,
  TagDocumentsRequest,
  TagDocumentsResult
} from "./ReviewBridge.ts"
import { ReviewBridgeForbidden, ReviewBridgeInvalid, ReviewBridgeNotFound } from "./ReviewBridgeErrors.ts"
import { type HitRow, ReviewBridgeRepo } from "./ReviewBridgeRepo.ts"
import { checkNewTask, type NewTaskFields } from "./TaskFields.ts"

const invalid = (field: string, reason: string) => new ReviewBridgeInvalid({ field, reason })

const requireStaff = (caller: BridgeCaller) =>
  caller.isStaff
    ? Effect.void
    : Effect.fail(new ReviewBridgeForbidden({ reason: "only staff may send batch searches to review or tag reviewed documents" }))

const requireProjects = (caller: BridgeCaller, projects: ReadonlyArray<string>) => {
  const refused = projects.find((project) => !caller.grantedProjects.includes(project))
  return refused === undefined ? Effect.void : Effect.fail(new ReviewBridgeForbidden({ reason: `no access to project ${refused}` }))
}

/**
 * The bridge between search and review: batch-search hits become the records of a review task (one transaction:
 * the task, its records and their attributions), and the confirmed records of a task tag their documents.
 * Database failures, its transactions' included, are defects.
 */
export class ReviewBridges extends Effect.Service<ReviewBridges>()("quarry/ReviewBridges", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ReviewBridgeRepo
    const batchSearches = yield* BatchSearchRepo
    const marks = yield* DocumentMarks
    const backend = yield* SearchBackend

    /** A batch search the caller may read (theirs or published) on projects they all have access to, finished. */
    const readableSearch = (caller: BridgeCaller, uuid: string) =>
      Effect.gen(function* () {
        const found = yield* batchSearches.find(uuid)
        if (Option.isNone(found) || (found.value.userId !== caller.login && !found.value.published))
          return yield* new BatchSearchNotFound({ uuid })
        yield* requireProjects(caller, found.value.projects)
        if (found.value.state === "QUEUED" || found.value.state === "RUNNING")
          return yield* invalid("batchSearch", "the batch search has not finished yet")
        return found.value
      })

    /** The record of a hit: the document, the query, the best passage, where it comes from and its link. */
    const recordOf = (hit: HitRow, uuid: string, passage: string | undefined, linkTemplate: string | undefined) => ({
      uid: hit.docId,
      originalValue: hit.query,
      predictedValue: passage ?? null,
      metadata: JSON.stringify({ path: hit.path, contentType: hit.contentType, project: hit.project, batchSearch: uuid, query: hit.query }),
      link:
        linkTemplate === undefined || linkTemplate === ""
          ? null
          : renderLink(linkTemplate, { project: hit.project, id: hit.docId, routing: hit.rootId })
    })

    const fromBatchSearch = Effect.fn("ReviewBridges.fromBatchSearch")(function* (caller: BridgeCaller, request: FromBatchSearchRequest) {
      yield* requireStaff(caller)
      const search = yield* readableSearch(caller, request.batchSearch)
      if (request.maxHitsPerQuery !== undefined && request.maxHitsPerQuery < 1)
        return yield* invalid("maxHitsPerQuery", "maxHitsPerQuery is at least 1")
      const wanted = request.queries ?? []
      const known = new Set(yield* repo.queries(search.uuid))
      const unknown = wanted.filter((query) => !known.has(query))
      if (unknown.length > 0) return yield* invalid("queries", `not queries of the batch search: ${unknown.join(", ")}`)
      let newTask: NewTaskFields | undefined
      let reviewProjectId: number
      if (request.task === undefined) {
        newTask = yield* checkNewTask(request, search.name, caller.userId).pipe(Effect.provideService(ReviewBridgeRepo, repo))
        reviewProjectId = newTask.projectId
      } else {
        // The fields of a new task would be ignored by an existing one: refused, rather than silently dropped.
        const newTaskFields = [
          ...(["name", "project", "choiceGroup", "rounds"] as const).filter((field) => request[field] !== undefined),
          ...((request.checkers ?? []).length > 0 ? ["checkers"] : [])
        ]
        if (newTaskFields.length > 0) {
          return yield* invalid(
            newTaskFields[0]!,
            `${newTaskFields.join(", ")} describe a new task: leave them out to add records to task ${request.task}`
          )
        }
        const task = yield* repo.taskProject(request.task)
        if (Option.isNone(task)) return yield* new ReviewBridgeNotFound({ field: "task", reason: `no review task ${request.task}` })
        reviewProjectId = task.value.projectId
      }
      const hits = yield* repo.hits({
        uuid: search.uuid,
        taskId: request.task,
        reviewProjectId,
        queries: wanted,
        maxHitsPerQuery: request.maxHitsPerQuery ?? 2_147_483_647,
        skipReviewed: request.skipReviewed ?? false
      })
      const fresh = hits.filter((hit) => !hit.skip)
      // Passages come from the search service before the transaction opens: it stays short and holds no lock
      // while the index is read.
      const passages = new Map<string, ReadonlyMap<string, string>>()
      for (const [query, ofQuery] of Object.entries(Arr.groupBy(fresh, (hit) => hit.query))) {
        passages.set(
          query,
          yield* bestPassages(
            search.projects,
            query,
            search,
            ofQuery.map((hit) => hit.docId)
          ).pipe(Effect.provideService(SearchBackend, backend))
        )
      }
      const linkTemplate = yield* settingValue("documentLinkTemplate").pipe(Effect.provideService(SqlClient.SqlClient, sql))
      const records = fresh.map((hit) => recordOf(hit, search.uuid, passages.get(hit.query)?.get(hit.docId), linkTemplate))
      return yield* sql
        .withTransaction(
          Effect.gen(function* () {
            // A task created here is new to every other transaction; an existing one is locked so concurrent runs add a hit once.
            const taskId = newTask === undefined ? request.task! : yield* repo.insertTask(newTask)
            if (newTask === undefined && Option.isNone(yield* repo.lockTask(taskId))) {
              return yield* new ReviewBridgeNotFound({ field: "task", reason: `no review task ${taskId}` })
            }
            const inserted = yield* repo.insertRecords(taskId, records)
            yield* attributeAutomatically(taskId, inserted)
            return {
              task: taskId,
              createdTask: newTask !== undefined,
              records: inserted.length,
              skipped: hits.length - inserted.length
            } satisfies FromBatchSearchResult
          })
        )
        .pipe(Effect.provideService(SqlClient.SqlClient, sql))
    }, dieOnSqlError)

    const tagDocuments = Effect.fn("ReviewBridges.tagDocuments")(function* (caller: BridgeCaller, request: TagDocumentsRequest) {
      yield* requireStaff(caller)
      if (request.confirmingValues.length === 0)
        return yield* invalid("confirmingValues", "name at least one choice value that confirms a record")
      if (Option.isNone(yield* repo.taskProject(request.task)))
        return yield* new ReviewBridgeNotFound({ field: "task", reason: `no review task ${request.task}` })
      const confirmed = yield* repo.confirmedDocuments(request.task, request.confirmingValues)
      const byProject = Arr.groupBy(confirmed, (record) => record.project)
      yield* requireProjects(caller, Object.keys(byProject))
      const projectCaller = { login: caller.login, grantedProjects: caller.grantedProjects }
      // The legacy tag endpoint's path (index and tag rows together), all projects in one transaction.
      const tagged = yield* sql
        .withTransaction(
          Effect.forEach(Object.entries(byProject), ([project, records]) =>
            Effect.forEach(Arr.chunksOf([...new Set(records.map((record) => record.uid))], maxDocumentIds), (ids) =>
              Effect.as(marks.tag(project, ids, [request.tag], projectCaller), ids.length)
            )
          )
        )
        .pipe(
          Effect.catchTags({
            ProjectForbidden: (error) => Effect.fail(new ReviewBridgeForbidden({ reason: error.message })),
            InvalidMarks: (error) => Effect.fail(invalid("tag", error.reason)),
            TooManyMarks: (error) => Effect.fail(invalid("tag", error.reason))
          })
        )
      return { records: confirmed.length, documents: tagged.flat().reduce((sum, count) => sum + count, 0) } satisfies TagDocumentsResult
    }, dieOnSqlError)

    return { fromBatchSearch, tagDocuments }
  })
}) {}
