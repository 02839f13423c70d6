import type { SqlError, Statement } from "@effect/sql"
import { Effect } from "effect"
import { makeSlicedTurn } from "../../../EventLoop.ts"
import type { Query, SearchRequest } from "./Ast.ts"
import { type AggregationPart, aggregationParts } from "./Aggs.ts"
import { compileQuery } from "./Compile.ts"
import type { SearchRequestError } from "./Errors.ts"
import { resolveField } from "./Fields.ts"
import { highlightText } from "./Highlight.ts"
import { type ContentRead, type RecordRow, recordColumns, routingOf, sourceOf } from "./Records.ts"
import type { SearchedRecords } from "./SearchedRecords.ts"
import { type SortKey, sortKeys } from "./Sort.ts"
import { filterSource, sourceMayInclude } from "./Source.ts"
import type { Ranking } from "./TextQueries.ts"

/**
 * Runs a parsed search over some indices and answers the ES `_search` response. The matched
 * records are read once, into `matched`, with their score and sort values; the total, every aggregation and the
 * page of hits are then taken from it in the same statement, and a second one reads the page's records whole.
 */

type Sql = Statement.Constructor

/**
 * Columns `matched` keeps: where each record is, when there is a page to choose (and where a document's row is, when
 * some are ranked again), and the view columns the aggregated fields read (found in the SQL of their expressions).
 * Only those: a narrow `matched` stays in memory and is read fast by every part of the statement, where all the
 * view's columns made it spill to disk; and a facet alone (no page) reads only its field, which an index can give
 * without reading the documents.
 */
const matchedColumns = (sql: Sql, aggregatedFields: ReadonlyArray<string>, withPage: boolean, rowPlace: boolean) => {
  const read = aggregatedFields.flatMap((name) => {
    const field = resolveField(sql, name, "r")
    const fragments =
      field.kind === "text"
        ? [field.tsvector, field.source]
        : field.kind === "unknown"
          ? []
          : field.kind === "routing"
            ? [field.column, field.routed]
            : [field.column]
    return fragments.flatMap((fragment) => [...sql`${fragment}`.compile()[0].matchAll(/\br\.([a-z_]+)/g)].map((match) => match[1]!))
  })
  const place = [...(withPage ? ["project", "id", "path"] : []), ...(rowPlace ? ["row_tid"] : [])]
  return [...new Set([...place, ...read])].map((name) => sql.literal(`r.${name}`))
}

/**
 * The record types a query can match, from its `type` conditions (undefined when every type can match). Only required clauses count:
 * the client's searches say `type: Document` in a must clause.
 */
const recordTypes = (query: Query): ReadonlySet<string> | undefined => {
  switch (query._tag) {
    case "Bool": {
      const required = [...query.must, ...query.filter].map(recordTypes).filter((types) => types !== undefined)
      if (required.length === 0) return undefined
      return required.reduce((kept, types) => new Set([...kept].filter((type) => types.has(type))))
    }
    case "Terms":
      return query.field === "type" && !query.caseInsensitive ? new Set(query.values.map(String)) : undefined
    case "Match":
    case "Phrase":
      return query.field === "type" ? new Set([query.text]) : undefined
    case "ParentId":
      return new Set([query.type])
    case "HasChild":
      return new Set(["Document"])
    default:
      return undefined
  }
}

/**
 * What a search reads, aliased `r`: the documents' rows alone when its query keeps to them, which spares the planner the
 * union of record types (it then reads only the columns it needs, from an index where it can) and gives each record
 * its row's place; every record type otherwise.
 */
const searchedRecords = (sql: Sql, indices: ReadonlyArray<string>, query: Query): SearchedRecords => {
  const types = recordTypes(query)
  return types !== undefined && types.size === 1 && types.has("Document")
    ? { relation: "document_records", indices, rowPlace: sql.literal("r.row_tid") }
    : { relation: "search_records", indices, rowPlace: undefined }
}

const aggregatedFields = (request: SearchRequest) =>
  request.aggregations.flatMap(([, agg]) => [agg.field, ...("metrics" in agg ? agg.metrics.map(([, metric]) => metric.field) : [])])

/** The WHERE of a search: its indices and its query, over its records. */
export const searchScope = (sql: Sql, records: SearchedRecords, query: Query, ranking: Ranking = "exact") =>
  Effect.map(compileQuery(sql, query, "r", 0, true, ranking, records), (compiled) => ({
    where: sql`r.project IN ${sql.in(records.indices)} AND ${compiled.where}`,
    score: compiled.score,
    slack: compiled.slack ?? [],
    relations: compiled.relations ?? []
  }))

/** The relations a statement's scopes read beside their records, each once (the same name is the same relation). */
const relationsOf = (sql: Sql, relations: ReadonlyArray<readonly [string, Statement.Fragment]>) =>
  [...new Map(relations).entries()].map(([name, definition]) => sql`${sql.literal(name)} AS MATERIALIZED (${definition})`)

const totalCount = (sql: Sql, track: boolean | number) =>
  track === false
    ? sql.literal("NULL::int")
    : track === true
      ? sql`(SELECT count(*)::int FROM matched)`
      : sql`(SELECT count(*)::int FROM (SELECT 1 FROM matched LIMIT ${track + 1}) t)`

const totalValue = (track: boolean | number, count: unknown) => {
  if (track === false || typeof count !== "number") return undefined
  return track !== true && count > track ? { value: track, relation: "gte" } : { value: count, relation: "eq" }
}

/** A hit of the page: where it is, its score, and its sort values as ES shows them (dates in epoch millis). */
type PageEntry = readonly [project: string, id: string, path: string | null, score: number | null, ...sortValues: ReadonlyArray<unknown>]

/** The column of `matched` holding a sort key's values: the score is computed once, as `score`, whatever sorts on it. */
const sortColumn = (key: SortKey, index: number) => (key.kind === "score" ? "score" : `s${index}`)

const pageSelect = (sql: Sql, source: string, keys: ReadonlyArray<SortKey>, from: number, size: number) => {
  const values = keys.map((key, index) => {
    const column = sql.literal(`h.${sortColumn(key, index)}`)
    return key.kind === "date" ? sql`(extract(epoch FROM ${column}) * 1000)::float8` : column
  })
  const order = [
    ...keys.map((key, index) => sql`${sql.literal(`m.${sortColumn(key, index)}`)} ${key.order}`),
    sql`m.project COLLATE "C"`,
    sql`m.id COLLATE "C"`,
    sql`m.path COLLATE "C"`
  ]
  return sql`(SELECT coalesce(json_agg(json_build_array(${sql.csv([sql`h.project`, sql`h.id`, sql`h.path`, sql`h.score`, ...values])})), '[]'::json)
    FROM (SELECT * FROM ${sql.literal(source)} m ORDER BY ${sql.csv(order)} LIMIT ${size} OFFSET ${from}) h)`
}

/**
 * The records that can reach a page ranked by score, when `matched` holds a first pass's lower bounds (`score`) and
 * by how much each may fall short (`slack`), with their exact scores. A record without slack is exact already. Of the
 * others, those of the highest upper bounds are ranked first, four times as many as the page ends after (ties
 * included): a common word's highest tiers hold mostly documents its filter lets through by chance (47 of 29,647
 * matches for a word held at most 15 times), whose exact scores are low. Every record of the page scores at least the
 * page's lowest score among those exact scores and the other records' lower bounds (the bar), so of the others only
 * those whose upper bound reaches that bar are ranked then. Records without slack take no part in the first round:
 * where fewer than four pages' worth have a slack, the round's bound would otherwise fall to the score of a word found
 * once and take every match into it, ranked or not (2,223 records through each later step for a medium word whose 89
 * repeats are all a page needs). An exact score is computed again on the record, found again by `sameRecord`. The
 * margin covers rounding.
 */
const rankedCandidates = (
  sql: Sql,
  records: Statement.Fragment,
  sameRecord: Statement.Fragment,
  exactScore: Statement.Fragment,
  keys: ReadonlyArray<SortKey>,
  pageEnd: number
) => {
  const sortValues = keys.flatMap((key, index) => (key.kind === "score" ? [] : [sql.literal(`m.${sortColumn(key, index)}`)]))
  const columns = sql.csv([sql`m.project`, sql`m.id`, sql`m.path`, ...sortValues])
  const exactly = sql`CASE WHEN m.slack = 0 THEN m.score ELSE (SELECT max((${exactScore})::float8) FROM ${records} r WHERE ${sameRecord}) END`
  const upper = sql`m.score + m.slack`
  const firstRound = sql`coalesce(m.slack > 0 AND ${upper} >= (SELECT upper FROM top_bound), false)`
  return sql`top_bound AS (
    SELECT min(t.upper) AS upper FROM (SELECT ${upper} AS upper FROM matched m WHERE m.slack > 0 ORDER BY 1 DESC LIMIT ${4 * pageEnd}) t
  ),
  ranked_top AS MATERIALIZED (SELECT ${columns}, ${exactly} AS score FROM matched m WHERE ${firstRound}),
  bar AS (
    SELECT min(t.score) AS score FROM (
      SELECT s.score FROM (SELECT score FROM ranked_top UNION ALL SELECT m.score FROM matched m WHERE NOT ${firstRound}) s
      ORDER BY 1 DESC LIMIT ${pageEnd}) t
  ),
  ranked AS MATERIALIZED (
    SELECT * FROM ranked_top
    UNION ALL
    SELECT ${columns}, ${exactly} FROM matched m
    WHERE NOT ${firstRound} AND ${upper} >= (SELECT score - 1e-6 * (1 + abs(score)) FROM bar)
  )`
}

/** Bounded words past which a search ranks in one pass. */
const maxBoundedWords = 8

/** ES's `index.highlight.max_analyzed_offset`: the characters a highlight analyses when the request sets no limit. */
const defaultMaxAnalyzedOffset = 1_000_000
/** Characters read past the analysed ones, so that a passage ending after the limit ends where it would in the whole text. */
const passageMargin = 64 * 1024

/**
 * The content a page needs: all of it when the source may show it or a highlight marks the whole text; for
 * highlighting passages, only the characters analysed (and a margin), so that a page of long documents does not read
 * and send each of them whole.
 */
const contentRead = (request: SearchRequest): ContentRead => {
  if (sourceMayInclude(request.source, "content")) return "whole"
  if (request.highlight.length === 0) return "none"
  if (request.highlight.some((field) => field.numberOfFragments === 0)) return "whole"
  const analysed = Math.max(
    ...request.highlight.map((field) => Math.max(field.maxAnalyzedOffset ?? defaultMaxAnalyzedOffset, field.noMatchSize))
  )
  return { firstCharacters: analysed + passageMargin }
}

/**
 * The page's records, whole (content included as far as the source or a highlight needs it), in page order, read from
 * the relation the search read (planning the union of record types for 25 conditions cost more than reading them).
 * They are asked for by their indices and ids, two lists (25 conditions of three columns took 0.7 ms more to plan than
 * to run), and the rows of other paths, if any, are left here.
 */
const pageRecords = (sql: Sql, records: Statement.Fragment, page: ReadonlyArray<PageEntry>, content: ContentRead) =>
  Effect.gen(function* () {
    if (page.length === 0) return []
    const projects = [...new Set(page.map(([project]) => project))]
    const ids = [...new Set(page.map(([, id]) => id))]
    const rows = yield* sql<RecordRow>`SELECT ${recordColumns(sql, "r", content)} FROM ${records} r
      WHERE r.project IN ${sql.in(projects)} AND r.id = ANY(${ids}::text[])`
    const byKey = new Map(rows.map((row) => [`${row.project}\0${row.id}\0${row.path}`, row]))
    return page.flatMap((entry) => {
      const row = byKey.get(`${entry[0]}\0${entry[1]}\0${entry[2]}`)
      return row === undefined ? [] : [{ row, entry }]
    })
  })

/** A hit as ES shows it: where it is, its score, its source as asked, its highlights and its sort values. */
const hitOf = (request: SearchRequest, record: RecordRow, entry: PageEntry) => {
  const highlight = Object.fromEntries(
    request.highlight.flatMap((field) => {
      const text = field.field === "content" ? record.content : null
      const fragments = text === null ? [] : highlightText(text, request.query, field)
      return fragments.length === 0 ? [] : [[field.field, fragments] as const]
    })
  )
  return {
    _index: record.project,
    _id: record.id,
    _score: entry[3],
    ...routingOf(record),
    ...(request.source === false ? {} : { _source: filterSource(sourceOf(record), request.source) }),
    ...(Object.keys(highlight).length === 0 ? {} : { highlight }),
    ...(request.sort === undefined ? {} : { sort: entry.slice(4) })
  }
}

/** Highlighting time after which a page's hits give the event loop a turn (a long manual's highlights take ~10 ms). */
const highlightSliceMillis = 10

export const runSearch = (
  sql: Sql,
  indices: ReadonlyArray<string>,
  request: SearchRequest
): Effect.Effect<Record<string, unknown>, SearchRequestError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const started = Date.now()
    const searched = searchedRecords(sql, indices, request.query)
    const exact = yield* searchScope(sql, searched, request.query)
    // Without a page (facets, counts) nothing is ranked or sorted.
    const withPage = request.size > 0
    const clauses = withPage ? (request.sort ?? [{ _tag: "Score", order: "desc" }]) : []
    const scored = clauses.some((clause) => clause._tag === "Score")
    // A page of the best scores is chosen from a first pass when that pass bounds some scores instead of computing them,
    // for a few words: each bounded word tests up to 40 bits of the filter in every match.
    const bestFirst = clauses[0]?._tag === "Score" && clauses[0].order === "desc"
    const firstPass = bestFirst ? yield* searchScope(sql, searched, request.query, "firstPass") : undefined
    const twoPasses = firstPass !== undefined && firstPass.slack.length > 0 && firstPass.slack.length <= maxBoundedWords
    const scope = twoPasses ? firstPass : exact
    const keys = (yield* sortKeys(sql, clauses, sql.literal("score"))).filter((key) => key.expression !== undefined)
    const parts: ReadonlyArray<readonly [string, AggregationPart]> = yield* aggregationParts(sql, request.aggregations)
    const records = sql.literal(searched.relation)
    // A document's record is found again by its row's place (a TID scan), others by index, id and path.
    const byRowPlace = twoPasses && searched.rowPlace !== undefined
    const sameRecord = byRowPlace
      ? sql`r.row_tid = m.row_tid`
      : sql`r.project = m.project AND r.id = m.id AND r.path IS NOT DISTINCT FROM m.path`
    const columns = [
      ...matchedColumns(sql, aggregatedFields(request), withPage, byRowPlace),
      ...(withPage ? [sql`${scored ? sql`(${scope.score})::float8` : sql.literal("NULL::float8")} AS score`] : []),
      ...(twoPasses ? [sql`(${sql.join(" + ", false)(scope.slack)})::float8 AS slack`] : []),
      ...keys.flatMap((key, index) => (key.kind === "score" ? [] : [sql`${key.expression!} AS ${sql.literal(`s${index}`)}`]))
    ]
    // The relations the conditions and scores read beside the records (the exact scores' too, for the candidates).
    const besides = relationsOf(sql, [...scope.relations, ...(twoPasses ? exact.relations : [])])
    const rows = yield* sql<Record<string, unknown>>`
      WITH ${besides.length === 0 ? sql`` : sql`${sql.csv(besides)}, `}matched AS MATERIALIZED (
        SELECT ${columns.length === 0 ? sql.literal("1 AS found") : sql.csv(columns)}
        FROM ${records} r WHERE ${scope.where}
      )${twoPasses ? sql`, ${rankedCandidates(sql, records, sameRecord, exact.score, keys, request.from + request.size)}` : sql``}
      SELECT ${totalCount(sql, request.trackTotalHits)} AS total,
        ${request.size === 0 ? sql.literal("'[]'::json") : pageSelect(sql, twoPasses ? "ranked" : "matched", keys, request.from, request.size)} AS page
        ${parts.length === 0 ? sql`` : sql`, ${sql.csv(parts.map(([, part], index) => sql`${part.select} AS ${sql.literal(`a${index}`)}`))}`}`
    const row = rows[0] ?? {}
    const aggregations = yield* Effect.forEach(parts, ([name, part], index) =>
      Effect.map(part.finish(row[`a${index}`]), (value) => [name, value] as const)
    )
    const page = (Array.isArray(row.page) ? row.page : []) as ReadonlyArray<PageEntry>
    const pageRows = yield* pageRecords(sql, records, page, contentRead(request))
    // One hit at a time, with a turn of the event loop between hits every few milliseconds: highlighting a long text
    // is synchronous work, which the search's deadline (a timer) and other requests can only interrupt between hits.
    const turnWhenSliceUsed = makeSlicedTurn(highlightSliceMillis)
    const hits = yield* Effect.forEach(pageRows, ({ row: record, entry }) =>
      Effect.zipLeft(
        Effect.sync(() => hitOf(request, record, entry)),
        turnWhenSliceUsed
      )
    )
    const scores = page.flatMap((entry) => (entry[3] === null ? [] : [entry[3]]))
    const total = totalValue(request.trackTotalHits, row.total)
    return {
      took: Date.now() - started,
      timed_out: false,
      _shards: { total: indices.length, successful: indices.length, skipped: 0, failed: 0 },
      hits: {
        ...(total === undefined ? {} : { total }),
        max_score: scores.length === 0 ? null : Math.max(...scores),
        hits
      },
      ...(request.aggregations.length === 0 ? {} : { aggregations: Object.fromEntries(aggregations) })
    }
  })

/** `_count`: the number of records a query matches. */
export const runCount = (sql: Sql, indices: ReadonlyArray<string>, query: Query) =>
  Effect.gen(function* () {
    const searched = searchedRecords(sql, indices, query)
    const scope = yield* searchScope(sql, searched, query)
    const relations = relationsOf(sql, scope.relations)
    const besides = relations.length === 0 ? sql`` : sql`WITH ${sql.csv(relations)} `
    const rows = yield* sql<{ count: number }>`${besides}SELECT count(*)::int AS count
      FROM ${sql.literal(searched.relation)} r WHERE ${scope.where}`
    return { count: rows[0]?.count ?? 0, _shards: { total: indices.length, successful: indices.length, skipped: 0, failed: 0 } }
  })
