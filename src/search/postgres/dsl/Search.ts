import type { SqlError, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Query, SearchRequest } from "./Ast.ts"
import { type AggregationPart, aggregationParts } from "./Aggs.ts"
import { compileQuery } from "./Compile.ts"
import type { SearchRequestError } from "./Errors.ts"
import { highlightText } from "./Highlight.ts"
import { type RecordRow, recordColumns, routingOf, sourceOf } from "./Records.ts"
import { type SortKey, sortKeys } from "./Sort.ts"
import { filterSource, sourceMayInclude } from "./Source.ts"

/** Runs a parsed search over some indices and answers the ES `_search` response (search-dsl.md §4). */

type Sql = Statement.Constructor
type Fragment = Statement.Fragment

interface HitRow extends RecordRow {
  readonly score: number | null
  readonly [sortValue: `s${number}`]: unknown
}

/** Columns aggregations read; the matched records are materialised with these only (no text, no tsvector). */
const matchedColumns = [
  "project", "id", "type", "routing", "routed", "join_parent", "path", "dirname", "dirname_tree", "content_type",
  "content_type_category", "content_length", "content_text_length", "content_encoding", "language", "metadata",
  "extraction_date", "extraction_level", "tags", "ner_tags", "status", "parent_document", "root_document", "title",
  "mention", "mention_norm", "mention_norm_text_length", "category", "offsets", "extractor", "extractor_language",
  "is_hidden", "parts_of_speech", "document_id"
]
  .map((name) => `r.${name}`)
  .join(", ")

const totalValue = (track: boolean | number, count: number | null) => {
  if (track === false || count === null) return undefined
  return track !== true && count > track ? { value: track, relation: "gte" } : { value: count, relation: "eq" }
}

/** The count of a search, capped at `track_total_hits` when it is a number. */
const totalCount = (sql: Sql, source: Fragment, track: boolean | number) =>
  track === false
    ? sql.literal("NULL::int")
    : track === true
      ? sql`(SELECT count(*)::int FROM ${source})`
      : sql`(SELECT count(*)::int FROM (SELECT 1 FROM ${source} LIMIT ${track + 1}) t)`

/**
 * The total and the aggregations in one statement: the matched records are read once into `matched`, which
 * the count and every aggregation then scan. Without aggregations the count reads the records directly.
 */
const totalAndAggregations = (sql: Sql, scope: Fragment, track: boolean | number, parts: ReadonlyArray<readonly [string, AggregationPart]>) =>
  Effect.gen(function* () {
    if (parts.length === 0) {
      if (track === false) return { total: undefined, aggregations: {} }
      const rows = yield* sql<{ total: number }>`SELECT ${totalCount(sql, sql`search_records r WHERE ${scope}`, track)} AS total`
      return { total: totalValue(track, rows[0]?.total ?? 0), aggregations: {} }
    }
    const selects = parts.map(([, part], index) => sql`${part.select} AS ${sql.literal(`a${index}`)}`)
    const rows = yield* sql<Record<string, unknown>>`
      WITH matched AS MATERIALIZED (SELECT ${sql.literal(matchedColumns)} FROM search_records r WHERE ${scope})
      SELECT ${totalCount(sql, sql`matched`, track)} AS total, ${sql.csv(selects)}`
    const row = rows[0] ?? {}
    const aggregations = yield* Effect.forEach(parts, ([name, part], index) => Effect.map(part.finish(row[`a${index}`]), (value) => [name, value] as const))
    return { total: totalValue(track, typeof row.total === "number" ? row.total : null), aggregations: Object.fromEntries(aggregations) }
  })

/** The WHERE of a search: its indices and its query, over records aliased `r`. */
export const searchScope = (sql: Sql, indices: ReadonlyArray<string>, query: Query) =>
  Effect.map(compileQuery(sql, query, "r"), (compiled) => ({ where: sql`r.project IN ${sql.in(indices)} AND ${compiled.where}`, score: compiled.score }))

const sortValue = (key: SortKey, value: unknown) => {
  if (value === null || value === undefined) return null
  if (key.kind === "date" && value instanceof Date) return value.getTime()
  return typeof value === "string" || typeof value === "boolean" ? value : Number(value)
}

export const runSearch = (sql: Sql, indices: ReadonlyArray<string>, request: SearchRequest): Effect.Effect<Record<string, unknown>, SearchRequestError | SqlError.SqlError> =>
  Effect.gen(function* () {
    const started = Date.now()
    const scope = yield* searchScope(sql, indices, request.query)
    const clauses = request.sort ?? [{ _tag: "Score", order: "desc" }]
    const scored = clauses.some((clause) => clause._tag === "Score")
    const keys = yield* sortKeys(sql, clauses, sql`(${scope.score})::float8`)
    const ordered = keys.filter((key) => key.expression !== undefined)
    const withContent = request.highlight.length > 0 || sourceMayInclude(request.source, "content")
    const hitsQuery = request.size === 0
      ? Effect.succeed([] as ReadonlyArray<HitRow>)
      : sql<HitRow>`
          SELECT ${recordColumns(sql, "r", withContent)}, ${scored ? sql`(${scope.score})::float8` : sql.literal("NULL::float8")} AS score
            ${ordered.length === 0 ? sql`` : sql`, ${sql.csv(ordered.map((key, index) => sql`${key.expression!} AS ${sql.literal(`s${index}`)}`))}`}
          FROM search_records r
          WHERE ${scope.where}
          ORDER BY ${sql.csv([...ordered.map((key) => sql`${key.expression!} ${key.order}`), sql`r.project COLLATE "C"`, sql`r.id COLLATE "C"`, sql`r.path COLLATE "C"`])}
          LIMIT ${request.size} OFFSET ${request.from}`
    const parts = yield* aggregationParts(sql, request.aggregations)
    const [{ total, aggregations }, rows] = yield* Effect.all([totalAndAggregations(sql, scope.where, request.trackTotalHits, parts), hitsQuery])
    const hits = rows.map((row) => {
      const source = sourceOf(row)
      const highlight = Object.fromEntries(
        request.highlight.flatMap((field) => {
          const text = field.field === "content" ? row.content : null
          const fragments = text === null ? [] : highlightText(text, request.query, field)
          return fragments.length === 0 ? [] : [[field.field, fragments] as const]
        })
      )
      return {
        _index: row.project,
        _id: row.id,
        _score: row.score,
        ...routingOf(row),
        ...(request.source === false ? {} : { _source: filterSource(source, request.source) }),
        ...(Object.keys(highlight).length === 0 ? {} : { highlight }),
        ...(request.sort === undefined ? {} : { sort: ordered.map((key, index) => (key.kind === "score" ? row.score : sortValue(key, row[`s${index}`]))) })
      }
    })
    const scores = rows.flatMap((row) => (row.score === null ? [] : [row.score]))
    return {
      took: Date.now() - started,
      timed_out: false,
      _shards: { total: indices.length, successful: indices.length, skipped: 0, failed: 0 },
      hits: {
        ...(total === undefined ? {} : { total }),
        max_score: scores.length === 0 ? null : Math.max(...scores),
        hits
      },
      ...(request.aggregations.length === 0 ? {} : { aggregations })
    }
  })

/** `_count`: the number of records a query matches. */
export const runCount = (sql: Sql, indices: ReadonlyArray<string>, query: Query) =>
  Effect.gen(function* () {
    const scope = yield* searchScope(sql, indices, query)
    const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM search_records r WHERE ${scope.where}`
    return { count: rows[0]?.count ?? 0, _shards: { total: indices.length, successful: indices.length, skipped: 0, failed: 0 } }
  })
