import * as os from "node:os"
import { SqlClient, type SqlError } from "@effect/sql"
import { Deferred, Effect, Exit, Fiber, Layer, Metric } from "effect"
import { DatabaseInfo } from "../../db/Database.ts"
import { InteractiveFirst } from "../../db/InteractiveFirst.ts"
import { holdsNul } from "../../db/Nul.ts"
import { type BackendRequest, type BackendResponse, SearchBackend } from "../SearchBackend.ts"
import { type AdmissionOptions, makeAdmission } from "./Admission.ts"
import { answerCacheHits, answerKey, type IndexGeneration, makeAnswerCache } from "./AnswerCache.ts"
import { errorBody, illegalArgument, indexNotFound, parsingError, SearchRequestError, searchTimedOut, unsupported } from "./dsl/Errors.ts"
import { withExpansions } from "./dsl/Expansion.ts"
import { type Field, resolveField } from "./dsl/Fields.ts"
import { parseCountRequest, parseSearchRequest, parseTimeout, sourceFilterOfUrl } from "./dsl/ParseRequest.ts"
import { type RecordRow, recordColumns, routingOf, sourceOf } from "./dsl/Records.ts"
import { continueScroll, openScroll } from "./dsl/Scroll.ts"
import { runCount, runSearch } from "./dsl/Search.ts"
import { filterSource } from "./dsl/Source.ts"

/**
 * The search backend of the embedded engine: the proxy's ES paths answered from the document tables.
 * Every refusal is an ES-shaped error answer; a database failure is logged and answered 500
 * without its details.
 */

const ok = (body: unknown, status = 200): BackendResponse => ({ status, body })

type SearchFailure = SearchRequestError | SqlError.SqlError

const mappingType = (field: Field) => {
  switch (field.kind) {
    case "keyword":
    case "routing":
      return "keyword"
    case "number":
      return field.integer ? "integer" : "long"
    case "date":
      return "date"
    case "boolean":
      return "boolean"
    case "text":
    case "tree":
      return "text"
    case "unknown":
      return undefined
  }
}

/** The body of a request: the parsed body, or for a GET the `source` parameter the proxy moved it into. */
const bodyOf = (request: BackendRequest) =>
  Effect.gen(function* () {
    if (request.body !== undefined) return request.body
    const source = request.query.get("source")
    if (source === null) return undefined
    const body = yield* Effect.try({
      try: (): unknown => JSON.parse(source),
      catch: () => parsingError("the source parameter is not valid JSON")
    })
    return holdsNul(body) ? yield* illegalArgument("NUL characters are not supported by embedded engine") : body
  })

/** What the answer cache may hold by default: some thousands of result pages with their facets. */
const defaultAnswerCacheBytes = 64 * 1024 * 1024

/** How long a search may run when its request gives no `timeout`. */
const defaultTimeoutMillis = 30_000

/**
 * Searches at once on the server: one more than the machine's cores, at most six. A search's statements are CPU work
 * once its pages are cached, and the usual deployment runs the database on the same machine: past its cores, more
 * running statements only take turns on them, while this process, whose one thread reads and highlights every page,
 * has more at once to do before it answers anyone else. On two cores, 200 concurrent searches took no longer with
 * three running than with six, and `/api/status` waited about a third as long at the median. Six is the pool's ten
 * connections less four kept for other requests and cancellations. The embedded database has one connection and runs
 * one statement at a time anyway.
 */
const defaultAdmission = (kind: "pglite" | "postgres"): AdmissionOptions => ({
  running: kind === "postgres" ? Math.min(6, os.availableParallelism() + 1) : 1,
  queued: 256,
  maxWaitMillis: 5_000
})

export interface SearchBackendOptions {
  readonly admission?: AdmissionOptions
  readonly defaultTimeoutMillis?: number
}

/** The embedded engine, with an answer cache of `answerCacheBytes` (0: none). */
export const makePostgresSearchBackend = (answerCacheBytes: number, options: SearchBackendOptions = {}) =>
  Layer.scoped(
    SearchBackend,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Without DatabaseInfo (some benchmarks provide the SqlClient alone), the server's sizing.
      const database = yield* Effect.serviceOption(DatabaseInfo)
      const layerScope = yield* Effect.scope
      const answers = makeAnswerCache(answerCacheBytes)
      const admit = yield* makeAdmission(options.admission ?? defaultAdmission(database._tag === "Some" ? database.value.kind : "postgres"))
      // On the embedded database, index writes hold back while a person's search waits or runs (see InteractiveFirst).
      const interactiveFirst = yield* Effect.serviceOption(InteractiveFirst)

      /**
       * The database work of a search: admitted (past the slots it waits or is refused, see Admission.ts), then given
       * until its deadline, when it is interrupted, which cancels its running statement on a server (the embedded
       * database cannot stop a statement: there the deadline acts between statements).
       */
      const bounded = <A>(request: BackendRequest, timeoutMillis: number | undefined, work: Effect.Effect<A, SearchFailure>) => {
        const millis = timeoutMillis ?? options.defaultTimeoutMillis ?? defaultTimeoutMillis
        return admit(Effect.timeoutFail(work, { duration: millis, onTimeout: () => searchTimedOut(millis) }), request.interactive === true)
      }

      /**
       * The indices of a comma-separated list, each with its generation; the first unknown one is a 404. Read before
       * the search runs, a generation is never newer than what the search then sees.
       */
      const existingIndices = (list: string) =>
        Effect.gen(function* () {
          const names = [...new Set(list.split(",").map((name) => name.trim()))]
          if (names.some((name) => name === "" || name.includes("*"))) return yield* unsupported(`index pattern ${list}`)
          const rows =
            yield* sql<IndexGeneration>`SELECT project, generation::text AS generation FROM document_indices WHERE project IN ${sql.in(names)}`
          const generations = new Map(rows.map((row) => [row.project, row]))
          const missing = names.find((name) => !generations.has(name))
          if (missing !== undefined) return yield* indexNotFound(missing)
          return names.map((name) => generations.get(name)!)
        })

      /**
       * Answers being computed, by key, with how many requesters wait for each. An identical request that comes
       * meanwhile (a burst of users opening the same result list) waits for that answer instead of running the same
       * search again. The computation runs on its own fiber, in the layer's scope, so a requester that goes away stops
       * no one else; when the last one waiting goes away, the computation is interrupted, which cancels its statement.
       */
      interface Computation {
        readonly answer: Deferred.Deferred<string, SearchFailure>
        waiters: number
        fiber: Fiber.RuntimeFiber<unknown> | undefined
      }
      const running = new Map<string, Computation>()

      const start = (key: string, answer: Effect.Effect<Record<string, unknown>, SearchFailure>) =>
        Effect.gen(function* () {
          const computation: Computation = { answer: yield* Deferred.make<string, SearchFailure>(), waiters: 0, fiber: undefined }
          running.set(key, computation)
          computation.fiber = yield* answer.pipe(
            Effect.map((value) => {
              const text = JSON.stringify(value)
              answers.set(key, text)
              return text
            }),
            Effect.onExit((exit) =>
              Effect.zipRight(
                Effect.sync(() => running.get(key) === computation && running.delete(key)),
                Deferred.done(computation.answer, exit)
              )
            ),
            Effect.exit,
            Effect.forkIn(layerScope)
          )
          return computation
        })

      const leave = (key: string, computation: Computation, interrupted: boolean) =>
        Effect.suspend(() => {
          computation.waiters--
          if (!interrupted || computation.waiters > 0 || computation.fiber === undefined) return Effect.void
          if (running.get(key) === computation) running.delete(key)
          return Fiber.interruptFork(computation.fiber)
        })

      const computeShared = (key: string, answer: Effect.Effect<Record<string, unknown>, SearchFailure>) =>
        Effect.gen(function* () {
          const pending = running.get(key)
          if (pending !== undefined) yield* Metric.increment(answerCacheHits)
          const computation = pending ?? (yield* start(key, answer))
          computation.waiters++
          return yield* Deferred.await(computation.answer).pipe(Effect.onExit((exit) => leave(key, computation, Exit.isInterrupted(exit))))
        })

      /**
       * The answer of a request: kept, being computed for an identical request, or computed now and kept. Without a
       * cache every request runs its own search. `took` is always this request's time.
       */
      const cached = (
        kind: string,
        indices: ReadonlyArray<IndexGeneration>,
        body: unknown,
        query: URLSearchParams,
        answer: Effect.Effect<Record<string, unknown>, SearchFailure>
      ) =>
        Effect.gen(function* () {
          if (answerCacheBytes === 0) return yield* answer
          const started = Date.now()
          const key = answerKey(kind, indices, body, query)
          if (key === undefined) return yield* answer
          const kept = answers.get(key)
          if (kept !== undefined) yield* Metric.increment(answerCacheHits)
          const text = kept ?? (yield* computeShared(key, answer))
          const copy = JSON.parse(text) as Record<string, unknown>
          return "took" in copy ? { ...copy, took: Date.now() - started } : copy
        })

      const search = (indices: ReadonlyArray<IndexGeneration>, request: BackendRequest) =>
        Effect.gen(function* () {
          const body = yield* bodyOf(request)
          const timeout = yield* parseTimeout(body, request.query)
          const scroll = request.query.get("scroll")
          const names = indices.map((index) => index.project)
          if (scroll !== null) {
            // The first page expands its terms too; later pages re-run the stored body with the per-record scan.
            const parsed = yield* parseSearchRequest(body, request.query)
            return yield* bounded(
              request,
              timeout,
              withExpansions(sql, names, parsed.query, openScroll(sql, names, body, request.query, scroll))
            )
          }
          const answer = Effect.flatMap(parseSearchRequest(body, request.query), (parsed) =>
            withExpansions(sql, names, parsed.query, runSearch(sql, names, parsed))
          )
          return yield* cached("search", indices, body, request.query, bounded(request, timeout, answer))
        })

      /** `_search/scroll`: the id and keep-alive from the body, the URL parameters, or the id as the last segment. */
      const scroll = (request: BackendRequest, idSegment: string | undefined) =>
        Effect.gen(function* () {
          const body = yield* bodyOf(request)
          const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
          const id = fields.scroll_id ?? request.query.get("scroll_id") ?? idSegment
          const keepAlive = fields.scroll ?? request.query.get("scroll") ?? undefined
          if (typeof id !== "string" || id === "") return yield* illegalArgument("request is missing scroll ID")
          if (keepAlive !== undefined && typeof keepAlive !== "string")
            return yield* parsingError("[scroll] must be a time value such as 1m")
          return yield* bounded(request, undefined, continueScroll(sql, id, keepAlive))
        })

      const asyncSearch = (indices: ReadonlyArray<IndexGeneration>, request: BackendRequest) =>
        Effect.map(search(indices, request), (response) => {
          const now = Date.now()
          return {
            is_partial: false,
            is_running: false,
            start_time_in_millis: now,
            expiration_time_in_millis: now + 5 * 24 * 3_600_000,
            completion_time_in_millis: now,
            response
          }
        })

      const count = (indices: ReadonlyArray<IndexGeneration>, request: BackendRequest) =>
        Effect.gen(function* () {
          const body = yield* bodyOf(request)
          const timeout = yield* parseTimeout(undefined, request.query)
          const names = indices.map((index) => index.project)
          const answer = Effect.flatMap(parseCountRequest(body, request.query), (query) =>
            withExpansions(sql, names, query, runCount(sql, names, query))
          )
          return yield* cached("count", indices, body, request.query, bounded(request, timeout, answer))
        })

      /** The index has one shard, so, as in ES then, a `routing` parameter does not change which record is found. */
      const record = (index: string, id: string) =>
        Effect.map(
          sql<RecordRow>`SELECT ${recordColumns(sql, "r", "whole")} FROM search_records r WHERE r.project = ${index} AND r.id = ${id} ORDER BY r.path LIMIT 1`,
          (rows) => rows[0]
        )

      const getDocument = (index: string, id: string, query: URLSearchParams) =>
        Effect.gen(function* () {
          const row = yield* record(index, id)
          if (row === undefined) return ok({ _index: index, _id: id, found: false }, 404)
          const filter = sourceFilterOfUrl(query)
          return ok({
            _index: index,
            _id: id,
            _version: 1,
            _seq_no: 0,
            _primary_term: 1,
            ...routingOf(row),
            found: true,
            ...(filter === false ? {} : { _source: filterSource(sourceOf(row), filter) })
          })
        })

      const getSource = (index: string, id: string, query: URLSearchParams) =>
        Effect.gen(function* () {
          const row = yield* record(index, id)
          if (row === undefined) {
            return yield* new SearchRequestError({
              esType: "resource_not_found_exception",
              reason: `Document not found [${index}]/[${id}]`,
              status: 404
            })
          }
          const filter = sourceFilterOfUrl(query)
          return ok(filter === false ? {} : filterSource(sourceOf(row), filter))
        })

      const fieldMapping = (indices: ReadonlyArray<IndexGeneration>, fields: string) =>
        Object.fromEntries(
          indices.map(({ project: index }) => {
            const mappings = Object.fromEntries(
              fields.split(",").flatMap((name) => {
                const type = mappingType(resolveField(sql, name, "r"))
                const leaf = name.split(".").pop() ?? name
                return type === undefined ? [] : [[name, { full_name: name, mapping: { [leaf]: { type } } }] as const]
              })
            )
            return [index, { mappings }]
          })
        )

      const route = (request: BackendRequest): Effect.Effect<BackendResponse, SearchRequestError | SqlError.SqlError> =>
        Effect.gen(function* () {
          const segments = request.path.replace(/^\/+|\/+$/g, "").split("/")
          const [first = "", second, third, fourth] = segments
          if (first === "_search" && second === "scroll" && segments.length <= 3) return ok(yield* scroll(request, third))
          if (first === "_async_search") {
            return yield* new SearchRequestError({ esType: "resource_not_found_exception", reason: `${second ?? ""}`, status: 404 })
          }
          if (first === "" || first.startsWith("_"))
            return yield* illegalArgument(`no handler found for uri [/${request.path}] and method [${request.method}]`)
          const indices = yield* existingIndices(first)
          if (request.method === "HEAD") return ok(undefined)
          const isSearch =
            (second === "_search" && segments.length === 2) ||
            ((second === "doc" || second === "_doc") && third === "_search" && segments.length === 3)
          if (isSearch) return ok(yield* search(indices, request))
          if (second === "_count" && segments.length === 2) return ok(yield* count(indices, request))
          if (second === "_async_search" && segments.length === 2) return ok(yield* asyncSearch(indices, request))
          if (request.method === "GET" && (second === "_doc" || second === "_source") && third !== undefined && segments.length === 3) {
            if (indices.length !== 1) return yield* illegalArgument(`${second} needs one index, got [${first}]`)
            const index = indices[0]!.project
            return second === "_doc" ? yield* getDocument(index, third, request.query) : yield* getSource(index, third, request.query)
          }
          if (request.method === "GET" && second === "_mapping" && third === "field" && fourth !== undefined && segments.length === 4) {
            return ok(fieldMapping(indices, fourth))
          }
          return yield* unsupported(`endpoint /${request.path} with ${request.method}`)
        })

      /**
       * A person's request holds index writes back from its first statement (the indices' generations) to its last, so
       * that no write starts between them (see InteractiveFirst).
       */
      const asInteractive = <A, E>(request: BackendRequest, effect: Effect.Effect<A, E>) =>
        request.interactive === true && interactiveFirst._tag === "Some" ? interactiveFirst.value.interactive(effect) : effect

      const handle = (request: BackendRequest) =>
        Effect.suspend(() =>
          holdsNul(request.body) || [...request.query.values()].some((value) => value.includes("\0")) || request.path.includes("\0")
            ? Effect.fail(illegalArgument("NUL characters are not supported by embedded engine"))
            : asInteractive(request, route(request))
        ).pipe(
          Effect.catchTags({
            SearchRequestError: (error) => Effect.succeed(ok(errorBody(error), error.status)),
            SqlError: (error) =>
              Effect.as(
                Effect.logError("search backend: database error", error),
                ok(
                  errorBody(
                    new SearchRequestError({ esType: "search_phase_execution_exception", reason: "all shards failed", status: 500 })
                  ),
                  500
                )
              )
          }),
          Effect.catchAllDefect((defect) =>
            Effect.as(
              Effect.logError("search backend: unexpected failure", defect),
              ok(
                errorBody(new SearchRequestError({ esType: "search_phase_execution_exception", reason: "all shards failed", status: 500 })),
                500
              )
            )
          ),
          Effect.withSpan("SearchBackend.handle", { attributes: { path: request.path } })
        )

      return SearchBackend.of({ handle })
    })
  )

export const PostgresSearchBackend = makePostgresSearchBackend(defaultAnswerCacheBytes)
