import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { anyOrAllQuery, isIndexableWord, phraseQuery, words } from "../../search/postgres/dsl/Text.ts"
import { fold } from "../../search/postgres/TextIndex.ts"
import { creationDateOf, type Hit, type QueryOptions } from "./BatchQuery.ts"

/**
 * Batch-search queries answered straight from the documents table when the search backend is the embedded engine:
 * many queries in one statement instead of a `_search` each. Only the queries whose meaning is plain are taken
 * here (bare words, optionally joined by one kind of operator, or a phrase); the others go through the backend.
 *
 * What the engine does with such a query (src/search/postgres/dsl): a `query_string` over the default fields
 * matches each part (a chunk of bare words, or the phrase) in the content (folded words), in the metadata words,
 * as the whole `path`, or as a named entity's `mentionNorm` (always NULL on a document). A part scores the ts_rank
 * of the content plus that of the metadata (each 0 when not matched) plus 1 when it is the path; the query scores
 * 1 (the Document type clause) + the sum of its parts, + 1 for each filter (content types, tags, each folder).
 * The score below is written in the same order with the same types, so that ties fall the same way.
 */

/** One part of a query as the engine matches it: its tsquery on the content, on the metadata words, and its text. */
export interface EmbeddedPart {
  readonly content: string
  readonly metadata: string
  readonly text: string
}

/** A query the embedded statement answers: its parts, all of them required (`AND`) or any (`OR`, bare words). */
export interface EmbeddedQuery {
  readonly parts: ReadonlyArray<EmbeddedPart>
  readonly required: "all" | "any"
}

/**
 * A word the query_string parser reads as a bare word: letters or digits first, then no character that is
 * syntax (quotes, brackets, `:`, `~`, `^`, `\`, `/`, wildcards, `!`, `&`, `|`…).
 */
const bareWord = /^[\p{L}\p{N}][\p{L}\p{N}'’.,_@#$%-]*$/u

/** Words of a text as a field normalises them, when all of them can be indexed (else the query is not plain). */
const indexableWords = (text: string, normalize: (text: string) => string) => {
  const found = words(normalize(text))
  return found.length > 0 && found.every(isIndexableWord) ? found : undefined
}

const lowercase = (text: string) => text.toLowerCase()

/** A chunk of bare words: one of its words (the default operator is OR). */
const wordsPart = (text: string): EmbeddedPart | undefined => {
  const content = indexableWords(text, fold)
  const metadata = indexableWords(text, lowercase)
  return content === undefined || metadata === undefined
    ? undefined
    : { content: anyOrAllQuery(content, "or"), metadata: anyOrAllQuery(metadata, "or"), text }
}

/** A phrase with `slop`: one word is a plain word query. */
const phrasePart = (text: string, slop: number): EmbeddedPart | undefined => {
  const content = indexableWords(text, fold)
  const metadata = indexableWords(text, lowercase)
  if (content === undefined || metadata === undefined) return undefined
  const tsquery = (terms: ReadonlyArray<string>) => (terms.length === 1 ? anyOrAllQuery(terms, "or") : phraseQuery(terms, slop))
  return { content: tsquery(content), metadata: tsquery(metadata), text }
}

const operators = new Map([
  ["AND", "all"],
  ["&&", "all"],
  ["OR", "any"],
  ["||", "any"]
] as const)

/**
 * The plain reading of a CSV line (see `queryText` in BatchQuery.ts for how the reference builds it), or undefined
 * when the line needs the engine's full parser: fuzzy words, syntax characters, `NOT`, operators mixed or misplaced.
 */
export const embeddedQuery = (query: string, options: Pick<QueryOptions, "phraseMatches" | "fuzziness">): EmbeddedQuery | undefined => {
  if (options.phraseMatches) {
    // The phrase is the line between quotes: a quote or a backslash in it would change what the parser reads.
    if (/["\\]/.test(query)) return undefined
    const part = phrasePart(query, options.fuzziness)
    return part === undefined ? undefined : { parts: [part], required: "any" }
  }
  if (options.fuzziness > 0) return undefined
  const tokens = query.split(/\s+/).filter((token) => token !== "")
  const chunks: Array<Array<string>> = [[]]
  let required: "all" | "any" | undefined
  for (const token of tokens) {
    const operator = operators.get(token as "AND")
    if (operator !== undefined) {
      // Lucene gives mixed operators a meaning of its own; an operator needs words on both sides.
      if ((required !== undefined && required !== operator) || chunks[chunks.length - 1]!.length === 0) return undefined
      required = operator
      chunks.push([])
    } else if (token === "NOT" || !bareWord.test(token)) {
      return undefined
    } else {
      chunks[chunks.length - 1]!.push(token)
    }
  }
  if (chunks[chunks.length - 1]!.length === 0) return undefined
  const parts = chunks.map((chunk) => wordsPart(chunk.join(" ")))
  if (parts.some((part) => part === undefined)) return undefined
  return { parts: parts as ReadonlyArray<EmbeddedPart>, required: required ?? "any" }
}

const joined = (parts: ReadonlyArray<EmbeddedPart>, name: "content" | "metadata", operator: string) =>
  parts.map((part) => `(${part[name]})`).join(operator)

/** The tsquery of a query on the content alone: its parts joined by its operator. */
export const contentQuery = (query: EmbeddedQuery) => joined(query.parts, "content", query.required === "all" ? " & " : " | ")

/** Whether every project has an index: the backend refuses a search of a missing one, the statement would find nothing. */
export const projectsIndexed = (projects: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM document_indices WHERE project = ANY(${projects}::text[])`
    return rows[0]?.count === new Set(projects).size
  })

/** A query of the batch to answer, with its position in the CSV. */
export interface NumberedQuery {
  readonly queryNumber: number
  readonly plan: EmbeddedQuery
}

/** Columns of a hit as the statement reads them: the creation date raw, parsed as the backend path parses it. */
interface HitRow extends Omit<Hit, "creationDate"> {
  readonly queryNumber: number
  readonly created: unknown
}

/**
 * The hits of many queries of the same shape (number of parts and operator), best first, in one statement: the
 * queries are a list (one array parameter per column) joined LATERAL to the indexed search of each. A query keeps
 * at most `perQuery` hits and the statement at most `total`, in query then rank order: what the batch may still
 * store, so a long list of broad queries never reads more than the batch keeps.
 */
const searchShape = (
  projects: ReadonlyArray<string>,
  options: QueryOptions,
  queries: ReadonlyArray<NumberedQuery>,
  limits: { readonly perQuery: number; readonly total: number }
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [first] = queries
    if (first === undefined) return []
    const indices = Array.from({ length: first.plan.parts.length }, (_, index) => index + 1)
    const column = (name: string, index: number) => sql.literal(`q.${name}${index}`)
    const partMatch = (index: number) =>
      sql`(d.content_tsv @@ ${column("c", index)} OR d.metadata_tsv @@ ${column("m", index)} OR d.path = ${column("p", index)})`
    // `CASE WHEN` keeps a rank 0 where the part is not found (ts_rank gives a phrase a tiny score even then).
    const partScore = (index: number) =>
      sql`(CASE WHEN d.content_tsv @@ ${column("c", index)} THEN ts_rank(d.content_tsv, ${column("c", index)}) ELSE 0 END + CASE WHEN d.metadata_tsv @@ ${column("m", index)} THEN ts_rank(d.metadata_tsv, ${column("m", index)}) ELSE 0 END + CASE WHEN d.path = ${column("p", index)} THEN 1 ELSE 0 END)`
    // The index lookups: a document that matches has every required part in its content, or one part in its
    // metadata words or as its path (with `any`, that is the condition itself). The exact condition is then checked
    // on those candidates only: `IS TRUE` (its parts are never NULL) keeps the planner from looking documents up by
    // one part instead, as it cannot tell which lookup finds fewer (one part alone read ~800 documents a query).
    const candidates = sql`(d.content_tsv @@ q.content OR d.metadata_tsv @@ q.metadata OR d.path = ANY(q.texts))`
    const condition = first.plan.required === "all" ? sql`(${sql.and(indices.map(partMatch))}) IS TRUE` : sql.literal("true")
    const filters = [
      ...(options.fileTypes.length > 0 ? [sql`d.content_type = ANY(${options.fileTypes}::text[])`] : []),
      ...(options.tags.length > 0
        ? [
            sql`EXISTS (SELECT 1 FROM unnest(d.tags) AS t(tag) WHERE lower(t.tag) = ANY(${options.tags.map((tag) => tag.toLowerCase())}::text[]))`
          ]
        : []),
      ...options.paths.map((path) => sql`d.dirname_tree && ${[path]}::text[]`)
    ]
    const filterScores = sql.literal(filters.map(() => " + 1").join(""))
    const partColumn = (name: "content" | "metadata" | "text", index: number) => queries.map((query) => query.plan.parts[index - 1]![name])
    const list = sql`unnest(${queries.map((query) => query.queryNumber)}::int[],
        ${queries.map((query) => contentQuery(query.plan))}::tsquery[], ${queries.map((query) => joined(query.plan.parts, "metadata", " | "))}::tsquery[],
        ${sql.csv(indices.flatMap((index) => [sql`${partColumn("content", index)}::tsquery[]`, sql`${partColumn("metadata", index)}::tsquery[]`, sql`${partColumn("text", index)}::text[]`]))})
      AS u(n, content, metadata, ${sql.literal(indices.map((index) => `c${index}, m${index}, p${index}`).join(", "))})`
    return yield* sql<HitRow>`
      SELECT n AS "queryNumber", project, id, root_id AS "rootId", path, content_type AS "contentType",
        content_length::float8 AS "contentLength", created
      FROM (
        SELECT q.n, h.*, row_number() OVER (ORDER BY q.n, h.rank) AS position
        FROM (SELECT u.*, ARRAY[${sql.literal(indices.map((index) => `u.p${index}`).join(", "))}] AS texts FROM ${list}) AS q
        CROSS JOIN LATERAL (
          SELECT d.project, d.id, d.root_id, d.path, d.content_type, d.content_length,
            d.metadata -> 'tika_metadata_dcterms_created' AS created,
            row_number() OVER (ORDER BY s.score DESC, d.project COLLATE "C", d.id COLLATE "C", d.path COLLATE "C") AS rank
          FROM documents d
          CROSS JOIN LATERAL (SELECT ((1 + (${sql.join(" + ", false)(indices.map(partScore))})${filterScores}))::float8 AS score) AS s
          WHERE d.project = ANY(${projects}::text[]) AND ${candidates} AND ${condition}${filters.length === 0 ? sql`` : sql` AND ${sql.and(filters)}`}
          ORDER BY s.score DESC, d.project COLLATE "C", d.id COLLATE "C", d.path COLLATE "C"
          LIMIT ${limits.perQuery}
        ) AS h
      ) AS kept
      WHERE position <= ${limits.total}
      ORDER BY position`
  })

/**
 * Hits of each query (by query number), best first: at most `perQuery`, and at most `total` over the queries of a
 * shape (see `searchShape`); the caller keeps, in CSV order, what the batch may still store.
 */
export const searchEmbedded = (
  projects: ReadonlyArray<string>,
  options: QueryOptions,
  queries: ReadonlyArray<NumberedQuery>,
  limits: { readonly perQuery: number; readonly total: number }
) =>
  Effect.gen(function* () {
    const hits = new Map<number, Array<Hit>>(queries.map((query) => [query.queryNumber, []]))
    // Queries of one shape share a statement; a batch's lines mostly have the same shape.
    const shapes = new Map<string, Array<NumberedQuery>>()
    for (const query of queries) {
      const key = `${query.plan.required}:${query.plan.parts.length}`
      const group = shapes.get(key)
      if (group === undefined) shapes.set(key, [query])
      else group.push(query)
    }
    for (const group of shapes.values()) {
      for (const row of yield* searchShape(projects, options, group, limits)) {
        hits.get(row.queryNumber)!.push({
          project: row.project,
          id: row.id,
          rootId: row.rootId,
          path: row.path,
          contentType: row.contentType,
          contentLength: row.contentLength,
          creationDate: creationDateOf(row.created)
        })
      }
    }
    return hits
  })
