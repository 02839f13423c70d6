import type { SqlClient, SqlError, Statement } from "@effect/sql"
import { Effect, FiberRef } from "effect"
import { makeSlicedTurn } from "../../../EventLoop.ts"
import type { Query, Scalar } from "./Ast.ts"
import { maxClauseCount, type SearchRequestError, shardFailure, tooManyClauses } from "./Errors.ts"
import { type Field, resolveField } from "./Fields.ts"
import { mapWildcardLiterals, trailingStarPrefix, wildcardToLike } from "./Patterns.ts"
import { isIndexableWord, words } from "./Text.ts"
import { editDistance } from "./WordPatterns.ts"

/**
 * Term expansion through the index's lexicon (`index_words`, migration 0110): a fuzzy term, a wildcard, a regular
 * expression or a range on `content` or `_default_text` becomes the list of the index's words it matches, found
 * through the lexicon's indexes, and the query then matches documents with a plain tsquery of those words through
 * the tsvector's GIN index. The words are looked up before the query is compiled (the compiler is pure SQL
 * building) and handed to it in `expandedWords`, keyed by `expansionKey`.
 *
 * Bounds, as ES 7 has them: a fuzzy term keeps its `max_expansions` closest words (50 by default, at most
 * `max_clause_count`), closest first then in word order as Lucene's top-terms rewrite; a wildcard, a regexp or a
 * range matching more than `max_clause_count` words is refused with `too_many_clauses` (ES rewrites those to a
 * constant-score bitset without a limit; here every word is a tsquery alternative, so the list must stay bounded).
 */

type TextField = Extract<Field, { kind: "text" }>

/** A fuzzy node with ES's `max_expansions` when the body gave one. */
export type FuzzyQuery = Extract<Query, { _tag: "Fuzzy" }> & { readonly maxExpansions?: number | undefined }

export const defaultMaxExpansions = 50

export interface RangeBounds {
  readonly gt?: Scalar | undefined
  readonly gte?: Scalar | undefined
  readonly lt?: Scalar | undefined
  readonly lte?: Scalar | undefined
}

/** What a text-field condition asks of the lexicon; `field` is the lexicon's field code. */
export type Expansion =
  | { readonly _tag: "Fuzzy"; readonly field: string; readonly term: string; readonly distance: number }
  | { readonly _tag: "Like"; readonly field: string; readonly like: string }
  | { readonly _tag: "Regexp"; readonly field: string; readonly pattern: string; readonly caseInsensitive: boolean }
  | { readonly _tag: "Range"; readonly field: string; readonly bounds: ReadonlyArray<readonly [string, string]> }

/** The lexicon field of a text field: only the stored, indexed tsvectors have one. */
const lexiconField = (field: TextField) => (field.name === "content" ? "c" : field.name === "_default_text" ? "m" : undefined)

export const fuzzyExpansion = (field: TextField, value: string, distance: number): Expansion | undefined => {
  const code = lexiconField(field)
  const term = field.normalize(value)
  return code === undefined || distance === 0 || !isIndexableWord(term) ? undefined : { _tag: "Fuzzy", field: code, term, distance }
}

/** Undefined for a trailing-star prefix, which the tsvector's index answers by itself (`'pre':*`). */
export const wildcardExpansion = (field: TextField, pattern: string): Expansion | undefined => {
  const code = lexiconField(field)
  if (code === undefined || pattern === "*") return undefined
  const normalized = mapWildcardLiterals(pattern, field.normalize)
  const prefix = trailingStarPrefix(normalized)
  if (prefix !== undefined && words(prefix).length === 1 && words(prefix)[0] === prefix && isIndexableWord(prefix)) return undefined
  return { _tag: "Like", field: code, like: wildcardToLike(normalized) }
}

export const regexpExpansion = (field: TextField, pattern: string, caseInsensitive: boolean): Expansion | undefined => {
  const code = lexiconField(field)
  return code === undefined ? undefined : { _tag: "Regexp", field: code, pattern, caseInsensitive }
}

const rangeOperators = [
  ["gt", ">"],
  ["gte", ">="],
  ["lt", "<"],
  ["lte", "<="]
] as const

export const rangeExpansion = (field: TextField, bounds: RangeBounds): Expansion | undefined => {
  const code = lexiconField(field)
  const given = rangeOperators.flatMap(([key, operator]) =>
    bounds[key] === undefined ? [] : [[operator, field.normalize(String(bounds[key]))] as const]
  )
  return code === undefined || given.length === 0 ? undefined : { _tag: "Range", field: code, bounds: given }
}

type FuzzyExpansion = Extract<Expansion, { _tag: "Fuzzy" }>

/** The key of an expansion (its properties are always built in the same order). */
export const expansionKey = (expansion: Expansion) => JSON.stringify(expansion)

/** The words of the expansions of the search being compiled, by key; a condition without an entry scans as before. */
export const expandedWords = FiberRef.unsafeMake<ReadonlyMap<string, ReadonlyArray<string>>>(new Map())

/** The expanded words of a condition, when the search looked them up. */
export const lookupExpansion = (expansion: Expansion | undefined) =>
  expansion === undefined
    ? Effect.succeed(undefined)
    : Effect.map(FiberRef.get(expandedWords), (found) => found.get(expansionKey(expansion)))

/** A tsquery of any of the words: quoted lexemes, so that a word with `-` or `.` stays one lexeme. */
export const anyWordQuery = (list: ReadonlyArray<string>) =>
  list.map((word) => `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`).join(" | ")

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * Words within `distance` edits must contain one of 2·distance + 1 consecutive pieces of the term unchanged (an edit
 * breaks at most one piece, a transposition two): a filter that loses no word, served by the trigram index when the
 * pieces have three characters or more, that spares most words the edit-distance function.
 */
const fuzzyPieces = (term: string, distance: number) => {
  const count = 2 * distance + 1
  const chars = [...term]
  if (chars.length < count) return []
  return Array.from({ length: count }, (_, index) =>
    chars.slice(Math.floor((index * chars.length) / count), Math.floor(((index + 1) * chars.length) / count)).join("")
  )
}

/** Byte order of UTF-8, which is the lexicon's collation ("C"). */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** Candidates whose distance is computed between two looks at the clock of a sliced turn. */
const distanceChunk = 500

/**
 * The `limit` distinct words within `distance` edits of `term`: closest first, then in the lexicon's order. The
 * distances are computed a chunk of words at a time, with `turn` between chunks: a term of thousands of candidates
 * took 6–19 ms.
 */
const closestWords = (candidates: ReadonlyArray<string>, term: string, distance: number, limit: number, turn: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const words = [...new Set(candidates)]
    const close: Array<{ readonly word: string; readonly distance: number }> = []
    for (let start = 0; start < words.length; start += distanceChunk) {
      for (const word of words.slice(start, start + distanceChunk)) {
        const edits = editDistance(word, term, distance)
        if (edits <= distance) close.push({ word, distance: edits })
      }
      yield* turn
    }
    return close
      .sort((a, b) => a.distance - b.distance || byteOrder(a.word, b.word))
      .slice(0, limit)
      .map((candidate) => candidate.word)
  })

/**
 * The lexicon's distinct words in `scope` that meet `condition`, in byte order: all of them, or more than
 * `max_clause_count` when there are more. The rows are read from a query of their own, planned to find all of them
 * (through the trigram index for a wildcard), and only as many are taken as can hold that many distinct words (one
 * row a word in each index). Asked for in order with a limit, the planner read the project's words in order through
 * the btree, expecting to stop early, and tested each of them: 700 ms for `%tan` among 612,382 words, 425 of which
 * matched, where the trigram index finds them in 5 ms.
 */
const matchingWords = (
  sql: SqlClient.SqlClient,
  indices: ReadonlyArray<string>,
  scope: Statement.Fragment,
  condition: Statement.Fragment
) =>
  sql<{ word: string }>`
    WITH matching AS MATERIALIZED (SELECT word FROM index_words WHERE ${scope} AND ${condition})
    SELECT DISTINCT word FROM (SELECT word FROM matching LIMIT ${(maxClauseCount + 1) * indices.length}) m ORDER BY word`

/** The words of the lexicon a pattern or range matches. */
const lookup = (
  sql: SqlClient.SqlClient,
  indices: ReadonlyArray<string>,
  expansion: Exclude<Expansion, FuzzyExpansion>
): Effect.Effect<ReadonlyArray<string>, SqlError.SqlError> => {
  const wordsOf = (rows: ReadonlyArray<{ readonly word: string }>) => rows.map((row) => row.word)
  const scope = sql`project IN ${sql.in(indices)} AND field = ${expansion.field}`
  switch (expansion._tag) {
    case "Like":
      return Effect.map(matchingWords(sql, indices, scope, sql`word LIKE ${expansion.like}`), wordsOf)
    case "Regexp": {
      const operator = sql.literal(expansion.caseInsensitive ? "~*" : "~")
      return Effect.map(matchingWords(sql, indices, scope, sql`word ${operator} ${expansion.pattern}`), wordsOf)
    }
    case "Range": {
      const conditions = expansion.bounds.map(([operator, value]) => sql`word ${sql.literal(operator)} ${value}`)
      return Effect.map(matchingWords(sql, indices, scope, sql.and(conditions)), wordsOf)
    }
  }
}

/** PostgreSQL's refusal of a regular expression it cannot compile (too complex, or invalid for it). */
const invalidRegularExpression = "2201B"

const expand = (sql: SqlClient.SqlClient, indices: ReadonlyArray<string>, expansion: Exclude<Expansion, FuzzyExpansion>) =>
  lookup(sql, indices, expansion).pipe(
    Effect.catchIf(
      (error) => (error.cause as { code?: unknown } | undefined)?.code === invalidRegularExpression,
      (error) =>
        Effect.fail(shardFailure("too_complex_to_determinize_exception", `regular expression refused: ${(error.cause as Error).message}`))
    ),
    Effect.flatMap((found) => (found.length > maxClauseCount ? Effect.fail(tooManyClauses()) : Effect.succeed(found)))
  )

/** What a lexicon word must meet to be within a fuzzy term's distance: its field, a close length, one of the term's pieces. */
const fuzzyCandidate = (expansion: FuzzyExpansion) => {
  const length = [...expansion.term].length
  const pieces = fuzzyPieces(expansion.term, expansion.distance)
  return {
    field: expansion.field,
    lowest: length - expansion.distance,
    highest: length + expansion.distance,
    pieces,
    // Pieces of three characters or more are found by the trigram index.
    indexed: pieces.length > 0 && pieces.every((piece) => [...piece].length >= 3)
  }
}

type FuzzyCandidate = ReturnType<typeof fuzzyCandidate>

/**
 * The lexicon condition of a field's fuzzy terms. Terms of long pieces keep their pieces, which the trigram index
 * serves; shorter terms, which no index serves, are read together: words of any of their lengths holding the first
 * character of one of their pieces (`translate` takes them out), a superset the process narrows. Tested word by word,
 * eight terms' LIKE pieces took 1.0–1.2 s on one process over the 812,392 words of 100,000 documents, the letters 0.4 s.
 */
const fieldCandidates = (sql: SqlClient.SqlClient, field: string, candidates: ReadonlyArray<FuzzyCandidate>) => {
  const lengths = (lowest: number, highest: number) => sql`length(word) BETWEEN ${lowest} AND ${highest}`
  const indexed = candidates
    .filter((candidate) => candidate.indexed)
    .map(
      (candidate) =>
        sql`(${lengths(candidate.lowest, candidate.highest)} AND (${sql.or(candidate.pieces.map((piece) => sql`word LIKE ${`%${likeEscape(piece)}%`}`))}))`
    )
  const short = candidates.filter((candidate) => !candidate.indexed)
  const firsts = [...new Set(short.flatMap((candidate) => candidate.pieces.map((piece) => [...piece][0]!)))].join("")
  const holdsFirst = short.some((candidate) => candidate.pieces.length === 0)
    ? sql``
    : sql`AND length(translate(word, ${firsts}, '')) < length(word)`
  const together =
    short.length === 0
      ? []
      : [sql`(${lengths(Math.min(...short.map((c) => c.lowest)), Math.max(...short.map((c) => c.highest)))} ${holdsFirst})`]
  return sql`(field = ${field} AND (${sql.or([...indexed, ...together])}))`
}

/** A word read from the lexicon, with its length in characters. */
interface LexiconWord {
  readonly field: string
  readonly word: string
  readonly letters: number
}

/** Whether a word read for several terms is a candidate of this one. */
const isCandidate = (candidate: FuzzyCandidate, row: LexiconWord) => {
  if (row.field !== candidate.field || row.letters < candidate.lowest || row.letters > candidate.highest) return false
  return candidate.pieces.length === 0 || candidate.pieces.some((piece) => row.word.includes(piece))
}

/**
 * Time after which the terms' distances give the event loop a turn (see `closestWords`): eight `~2` terms kept the
 * thread for 125–130 ms over the 28,850 words read for them on 100,000 generated documents, and `/api/status` waited
 * as long.
 */
const distanceSliceMillis = 10

/**
 * The closest words of each fuzzy term, `max_expansions` of them, from one reading of the lexicon for all the terms:
 * eight terms over the default fields read it sixteen times, 110–280 ms each on 100,000 documents. The distances are
 * computed here: the SQL function costs about 30 µs a word, which made a short term with two edits take a second.
 */
const closestOfEach = (
  sql: SqlClient.SqlClient,
  indices: ReadonlyArray<string>,
  fuzzy: ReadonlyArray<readonly [FuzzyExpansion, number]>
): Effect.Effect<ReadonlyArray<ReadonlyArray<string>>, SqlError.SqlError> => {
  const candidates = fuzzy.map(([expansion]) => fuzzyCandidate(expansion))
  const fields = [...new Set(candidates.map((candidate) => candidate.field))]
  const conditions = fields.map((field) =>
    fieldCandidates(
      sql,
      field,
      candidates.filter((candidate) => candidate.field === field)
    )
  )
  // Each word's length in characters comes with it, counted by the database rather than once a term here.
  const read = sql<LexiconWord>`
    SELECT field, word, length(word)::int AS letters FROM index_words WHERE project IN ${sql.in(indices)} AND (${sql.or(conditions)})`
  return Effect.flatMap(read, (lexicon) => {
    const turnWhenSliceUsed = makeSlicedTurn(distanceSliceMillis)
    return Effect.forEach(fuzzy, ([expansion, maxExpansions], index) =>
      closestWords(
        lexicon.filter((row) => isCandidate(candidates[index]!, row)).map((row) => row.word),
        expansion.term,
        expansion.distance,
        Math.min(maxExpansions, maxClauseCount),
        turnWhenSliceUsed
      )
    )
  })
}

/** The text-field expansion a query node needs, with its `max_expansions`. */
const expansionOf = (sql: SqlClient.SqlClient, query: Query): readonly [Expansion, number] | undefined => {
  if (!("field" in query)) return undefined
  const field = resolveField(sql, query.field, "r")
  if (field.kind !== "text") return undefined
  switch (query._tag) {
    case "Fuzzy": {
      const expansion = fuzzyExpansion(field, query.value, query.distance)
      return expansion && [expansion, (query as FuzzyQuery).maxExpansions ?? defaultMaxExpansions]
    }
    case "Wildcard": {
      const expansion = wildcardExpansion(field, query.pattern)
      return expansion && [expansion, maxClauseCount]
    }
    case "Regexp": {
      const expansion = regexpExpansion(field, query.pattern, query.caseInsensitive)
      return expansion && [expansion, maxClauseCount]
    }
    case "Range": {
      const expansion = rangeExpansion(field, query)
      return expansion && [expansion, maxClauseCount]
    }
    default:
      return undefined
  }
}

/** Every node of a query, nested ones included. */
const nodes = (query: Query): ReadonlyArray<Query> => {
  switch (query._tag) {
    case "Bool":
      return [query, ...[...query.must, ...query.filter, ...query.should, ...query.mustNot].flatMap(nodes)]
    case "HasChild":
    case "HasParent":
      return [query, ...nodes(query.query)]
    default:
      return [query]
  }
}

/** `max_clause_count` on the clauses of one bool query and on the words of one match query, as ES counts them. */
const checkClauses = (sql: SqlClient.SqlClient, query: Query): Effect.Effect<void, SearchRequestError> => {
  const tooMany = nodes(query).some((node) => {
    if (node._tag === "Bool") return node.must.length + node.filter.length + node.should.length + node.mustNot.length > maxClauseCount
    if (node._tag === "Match") {
      const field = resolveField(sql, node.field, "r")
      return field.kind === "text" && words(field.normalize(node.text)).length > maxClauseCount
    }
    return false
  })
  return tooMany ? Effect.fail(tooManyClauses()) : Effect.void
}

/**
 * Runs `effect` (which compiles and runs `query` over `indices`) with the query's clause count checked and its
 * text-field terms expanded through the lexicon. Identical expansions are looked up once, with the largest
 * `max_expansions` asked for.
 */
export const withExpansions = <A, E, R>(
  sql: SqlClient.SqlClient,
  indices: ReadonlyArray<string>,
  query: Query,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SearchRequestError | SqlError.SqlError, R> =>
  Effect.gen(function* () {
    yield* checkClauses(sql, query)
    const wanted = new Map<string, readonly [Expansion, number]>()
    for (const node of nodes(query)) {
      const found = expansionOf(sql, node)
      if (found === undefined) continue
      const key = expansionKey(found[0])
      const before = wanted.get(key)
      wanted.set(key, before === undefined || before[1] < found[1] ? found : before)
    }
    const expanded = new Map<string, ReadonlyArray<string>>()
    const fuzzy: Array<readonly [string, readonly [FuzzyExpansion, number]]> = []
    for (const [key, [expansion, maxExpansions]] of wanted) {
      if (expansion._tag === "Fuzzy") fuzzy.push([key, [expansion, maxExpansions]])
      else expanded.set(key, yield* expand(sql, indices, expansion))
    }
    if (fuzzy.length > 0) {
      const closest = yield* closestOfEach(
        sql,
        indices,
        fuzzy.map(([, wantedFuzzy]) => wantedFuzzy)
      )
      fuzzy.forEach(([key], index) => expanded.set(key, closest[index]!))
    }
    return yield* Effect.locally(effect, expandedWords, expanded)
  })
