import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect } from "effect"
import { dieOnSqlErrors } from "../../db/SqlFailure.ts"
import type { Hit } from "./BatchQuery.ts"
import type {
  BatchSearchFilter,
  BatchSearchResultRow,
  BatchSearchRow,
  BatchSearchState,
  NewBatchSearch,
  ResultsFilter
} from "./BatchSearch.ts"

/** Rows per INSERT of queries or results: 12 parameters a row stays far below PostgreSQL's 65535 a statement. */
const rowsPerInsert = 2_000

/** A result row on its way to the table: a hit and its rank among its query's results. */
export interface ResultToStore {
  readonly queryNumber: number
  readonly query: string
  readonly rank: number
  readonly hit: Hit
}

/** Where a results stream stands: the last result sent. */
export interface ResultKey {
  readonly queryNumber: number
  readonly docNb: number
}

/** Which results a stream sends: those of some queries (or all but them), of some content types. */
export interface ResultSelection {
  readonly queries?: ReadonlyArray<string> | null | undefined
  readonly queriesExcluded?: boolean | undefined
  readonly contentTypes?: ReadonlyArray<string> | null | undefined
}

/** Who lists: the batch searches visible to them are their own and the published ones on projects they may use. */
export interface Viewer {
  readonly userId: string
  readonly projects: ReadonlyArray<string>
}

/**
 * SQL of batch searches, their projects, queries and results (migration 0040). A failed statement is a defect:
 * no caller can do better than answer it as an internal error.
 */
export class BatchSearchRepo extends Effect.Service<BatchSearchRepo>()("quarry/BatchSearchRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const columns = sql.literal(`b.uuid, b.name, b.description, b.user_id AS "userId", b.batch_date AS "batchDate", b.state,
      b.published, b.phrase_matches AS "phraseMatches", b.fuzziness, b.file_types AS "fileTypes", b.paths, b.tags,
      b.nb_queries AS "nbQueries", b.batch_results AS "batchResults", b.error_message AS "errorMessage",
      b.error_query AS "errorQuery",
      ARRAY(SELECT p.project_id FROM batch_search_projects p WHERE p.search_uuid = b.uuid ORDER BY p.project_id) AS projects`)

    /** Owner or published, and every project of the batch search among `projects`. */
    const visibleTo = (viewer: Viewer) => sql`(b.user_id = ${viewer.userId} OR b.published)
      AND NOT EXISTS (SELECT 1 FROM batch_search_projects p WHERE p.search_uuid = b.uuid AND NOT p.project_id = ANY(${viewer.projects}::text[]))`

    const insert = Effect.fn("BatchSearchRepo.insert")(function* (uuid: string, search: NewBatchSearch) {
      yield* sql`INSERT INTO batch_searches (uuid, name, description, user_id, published, phrase_matches, fuzziness, file_types,
          paths, tags, nb_queries)
        VALUES (${uuid}, ${search.name}, ${search.description}, ${search.userId}, ${search.published}, ${search.phraseMatches},
          ${search.fuzziness}, ${search.fileTypes}::text[], ${search.paths}::text[], ${search.tags}::text[], ${search.queries.length})`
      yield* sql`INSERT INTO batch_search_projects (search_uuid, project_id)
        SELECT ${uuid}, value FROM unnest(${search.projects}::text[]) AS value ON CONFLICT DO NOTHING`
      yield* Effect.forEach(
        Arr.chunksOf(search.queries, rowsPerInsert),
        (chunk, chunkIndex) =>
          sql`INSERT INTO batch_search_queries (search_uuid, query_number, query)
          SELECT ${uuid}, ${chunkIndex * rowsPerInsert} + ordinality - 1, query
          FROM unnest(${chunk}::text[]) WITH ORDINALITY AS q(query, ordinality)`,
        { discard: true }
      )
    })

    const find = Effect.fn("BatchSearchRepo.find")(function* (uuid: string) {
      return Arr.head(yield* sql<BatchSearchRow>`SELECT ${columns} FROM batch_searches b WHERE b.uuid = ${uuid}`)
    })

    /** Every visible batch search, newest first. */
    const listVisible = Effect.fn("BatchSearchRepo.listVisible")(function* (viewer: Viewer) {
      return yield* sql<BatchSearchRow>`SELECT ${columns} FROM batch_searches b WHERE ${visibleTo(viewer)} ORDER BY b.batch_date DESC, b.uuid`
    })

    /** One page of the visible batch searches matching the filter, and how many match in all. */
    const filter = Effect.fn("BatchSearchRepo.filter")(function* (viewer: Viewer, filter: BatchSearchFilter) {
      const text = filter.query === undefined || filter.query === "" || filter.query === "*" ? undefined : `%${filter.query}%`
      const field = filter.field ?? "all"
      const textCondition =
        text === undefined
          ? sql`TRUE`
          : field === "all"
            ? sql`(b.name ILIKE ${text} OR b.description ILIKE ${text} OR b.user_id ILIKE ${text})`
            : sql`${sql(fieldColumn(field))}::text ILIKE ${text}`
      const [start, end] = filter.batchDate ?? []
      const conditions = sql.and([
        visibleTo(viewer),
        textCondition,
        start !== undefined && end !== undefined
          ? sql`b.batch_date BETWEEN to_timestamp(${Number(start)} / 1000.0) AND to_timestamp(${Number(end)} / 1000.0)`
          : sql`TRUE`,
        (filter.state ?? []).length > 0 ? sql`b.state = ANY(${filter.state ?? []}::text[])` : sql`TRUE`,
        filter.publishState === undefined || filter.publishState === null ? sql`TRUE` : sql`b.published = ${filter.publishState === "1"}`,
        (filter.contentTypes ?? []).length > 0 ? sql`b.file_types && ${filter.contentTypes ?? []}::text[]` : sql`TRUE`
      ])
      const direction = sql.literal(filter.order?.toLowerCase() === "desc" ? "DESC" : "ASC")
      const order =
        filter.sort === undefined
          ? sql`b.batch_date DESC`
          : filter.sort === "prj_id"
            ? sql`(SELECT min(p.project_id) FROM batch_search_projects p WHERE p.search_uuid = b.uuid) ${direction}, b.batch_date DESC`
            : sql`${sql(`b.${filter.sort}`)} ${direction}, b.batch_date DESC`
      const size = filter.size ?? 0
      const paging = size > 0 ? sql`LIMIT ${size} OFFSET ${filter.from ?? 0}` : sql`OFFSET ${filter.from ?? 0}`
      const items =
        yield* sql<BatchSearchRow>`SELECT ${columns} FROM batch_searches b WHERE ${conditions} ORDER BY ${order}, b.uuid ${paging}`
      const total = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM batch_searches b WHERE ${conditions}`
      return { items, total: total[0]?.total ?? 0 }
    })

    /** Queries in CSV order with their result counts. */
    const queries = Effect.fn("BatchSearchRepo.queries")(function* (
      uuid: string,
      options: { from: number; size: number; search?: string | undefined; orderBy: string; maxResults: number }
    ) {
      const search = options.search === undefined || options.search === "" ? sql`TRUE` : sql`query ILIKE ${`%${options.search}%`}`
      const capped = options.maxResults >= 0 ? sql`query_results <= ${options.maxResults}` : sql`TRUE`
      const limit = options.size > 0 ? sql`LIMIT ${options.size}` : sql``
      return yield* sql<{ query: string; queryResults: number }>`SELECT query, query_results AS "queryResults" FROM batch_search_queries
        WHERE search_uuid = ${uuid} AND ${search} AND ${capped}
        ORDER BY ${sql(options.orderBy)}, query_number ${limit} OFFSET ${options.from}`
    })

    /** Results, by default in query (CSV) order then rank. */
    const results = Effect.fn("BatchSearchRepo.results")(function* (uuid: string, filter: ResultsFilter) {
      const direction = sql.literal(filter.sort === undefined || filter.order?.toLowerCase() !== "desc" ? "ASC" : "DESC")
      const selected = filter.queries ?? []
      const queryCondition =
        selected.length === 0
          ? sql`TRUE`
          : filter.queriesExcluded === true
            ? sql`NOT query = ANY(${selected}::text[])`
            : sql`query = ANY(${selected}::text[])`
      const typeCondition =
        (filter.contentTypes ?? []).length > 0 ? sql`content_type = ANY(${filter.contentTypes ?? []}::text[])` : sql`TRUE`
      const order =
        filter.sort === undefined || filter.sort === "doc_nb"
          ? sql`query_number ${direction}, doc_nb ${direction}`
          : sql`${sql(filter.sort)} ${direction}, query_number, doc_nb`
      const size = filter.size ?? 0
      const paging = size > 0 ? sql`LIMIT ${size} OFFSET ${filter.from ?? 0}` : sql`OFFSET ${filter.from ?? 0}`
      return yield* sql<BatchSearchResultRow>`SELECT query, doc_nb AS "docNb", doc_id AS "docId", root_id AS "rootId",
          doc_path AS "docPath", creation_date AS "creationDate", content_type AS "contentType",
          content_length::float8 AS "contentLength", prj_id AS project
        FROM batch_search_results WHERE search_uuid = ${uuid} AND ${queryCondition} AND ${typeCondition}
        ORDER BY ${order} ${paging}`
    })

    /** Up to `limit` results after `after` in query (CSV) then rank order: one page of a results stream. */
    const resultPage = Effect.fn("BatchSearchRepo.resultPage")(function* (
      uuid: string,
      selection: ResultSelection,
      after: ResultKey | undefined,
      limit: number
    ) {
      const selected = selection.queries ?? []
      const queryCondition =
        selected.length === 0
          ? sql`TRUE`
          : selection.queriesExcluded === true
            ? sql`NOT query = ANY(${selected}::text[])`
            : sql`query = ANY(${selected}::text[])`
      const typeCondition =
        (selection.contentTypes ?? []).length > 0 ? sql`content_type = ANY(${selection.contentTypes ?? []}::text[])` : sql`TRUE`
      const afterCondition = after === undefined ? sql`TRUE` : sql`(query_number, doc_nb) > (${after.queryNumber}, ${after.docNb})`
      return yield* sql<BatchSearchResultRow & ResultKey>`SELECT query_number AS "queryNumber", query, doc_nb AS "docNb", doc_id AS "docId",
          root_id AS "rootId", doc_path AS "docPath", creation_date AS "creationDate", content_type AS "contentType",
          content_length::float8 AS "contentLength", prj_id AS project
        FROM batch_search_results WHERE search_uuid = ${uuid} AND ${queryCondition} AND ${typeCondition} AND ${afterCondition}
        ORDER BY query_number, doc_nb LIMIT ${limit}`
    })

    const setPublished = Effect.fn("BatchSearchRepo.setPublished")(function* (uuid: string, userId: string, published: boolean) {
      const rows =
        yield* sql`UPDATE batch_searches SET published = ${published} WHERE uuid = ${uuid} AND user_id = ${userId} RETURNING uuid`
      return rows.length > 0
    })

    /** Deletes the user's batch searches (with their children) but never a running one; answers the uuids deleted. */
    const remove = Effect.fn("BatchSearchRepo.remove")(function* (userId: string, uuid?: string) {
      const one = uuid === undefined ? sql`TRUE` : sql`uuid = ${uuid}`
      const rows = yield* sql<{
        uuid: string
      }>`DELETE FROM batch_searches WHERE user_id = ${userId} AND ${one} AND state <> 'RUNNING' RETURNING uuid`
      return rows.map((row) => row.uuid)
    })

    /** The queries still to run, from CSV position `done` on. */
    const pendingQueries = Effect.fn("BatchSearchRepo.pendingQueries")(function* (uuid: string, done: number) {
      return yield* sql<{ queryNumber: number; query: string }>`SELECT query_number AS "queryNumber", query FROM batch_search_queries
        WHERE search_uuid = ${uuid} AND query_number >= ${done} ORDER BY query_number`
    })

    const start = Effect.fn("BatchSearchRepo.start")(function* (uuid: string) {
      yield* sql`UPDATE batch_searches SET state = 'RUNNING', error_message = NULL, error_query = NULL WHERE uuid = ${uuid}`
    })

    const resultCount = Effect.fn("BatchSearchRepo.resultCount")(function* (uuid: string) {
      const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM batch_search_results WHERE search_uuid = ${uuid}`
      return rows[0]?.count ?? 0
    })

    /** Stores result rows in one statement. */
    const insertResults = Effect.fn("BatchSearchRepo.insertResults")(function* (uuid: string, rows: ReadonlyArray<ResultToStore>) {
      if (rows.length === 0) return
      yield* sql`INSERT INTO batch_search_results (search_uuid, query_number, query, doc_nb, doc_id, root_id, doc_path, creation_date,
          content_type, content_length, prj_id)
        VALUES ${sql.join(
          ",",
          false
        )(
          rows.map(
            ({ queryNumber, query, rank, hit }) => sql`(${uuid}, ${queryNumber}, ${query}, ${rank}, ${hit.id},
          ${hit.rootId}, ${hit.path}, ${hit.creationDate}, ${hit.contentType}, ${hit.contentLength}, ${hit.project})`
          )
        )}`
    })

    /** Result counts of queries, and the batch's total made again from its queries'. */
    const setQueryResults = Effect.fn("BatchSearchRepo.setQueryResults")(function* (
      uuid: string,
      counts: ReadonlyArray<{ readonly queryNumber: number; readonly count: number }>
    ) {
      yield* sql`UPDATE batch_search_queries q SET query_results = v.count
        FROM unnest(${counts.map((c) => c.queryNumber)}::int[], ${counts.map((c) => c.count)}::int[]) AS v(query_number, count)
        WHERE q.search_uuid = ${uuid} AND q.query_number = v.query_number`
      yield* sql`UPDATE batch_searches SET batch_results = (SELECT coalesce(sum(query_results), 0) FROM batch_search_queries WHERE search_uuid = ${uuid})
        WHERE uuid = ${uuid}`
    })

    const finish = Effect.fn("BatchSearchRepo.finish")(function* (
      uuid: string,
      state: BatchSearchState,
      errorMessage: string | null,
      errorQuery: string | null
    ) {
      yield* sql`UPDATE batch_searches SET state = ${state}, error_message = ${errorMessage}, error_query = ${errorQuery} WHERE uuid = ${uuid}`
    })

    /**
     * Ends a batch search whose task was stopped in FAILURE, unless it had ended already: the same function the task's
     * cancellation runs (migration 0130).
     */
    const failStopped = Effect.fn("BatchSearchRepo.failStopped")(function* (uuid: string) {
      yield* sql`SELECT quarry_end_stopped_batch_search(${uuid}::bpchar)`
    })

    return dieOnSqlErrors({
      insert,
      find,
      listVisible,
      filter,
      queries,
      results,
      resultPage,
      setPublished,
      remove,
      pendingQueries,
      start,
      resultCount,
      insertResults,
      setQueryResults,
      finish,
      failStopped
    })
  })
}) {}

/** The column a `field` filter names: the seed's filterable columns only. */
const fieldColumn = (field: string) => `b.${["name", "description", "user_id", "state"].includes(field) ? field : "name"}`
