import { createHash } from "node:crypto"
import type { Statement } from "@effect/sql"
import type { Field } from "./Fields.ts"
import { anyOrAllQuery } from "./Text.ts"

/** What a query leaf compiles to, and the tsquery leaves of text fields: one word is ranked with the word-count filter. */

type Fragment = Statement.Fragment
type Sql = Statement.Constructor
type TextField = Extract<Field, { kind: "text" }>

export interface Compiled {
  readonly where: Fragment
  /**
   * The same condition as `where`, as tested on one record (a score's guard, a `must_not`), when `where` is written for
   * the indexes and costs more per record: an expansion's words split among several tsqueries (tested as one, or as the
   * record's row among the rows they find: ExpandedConditions.ts), a fuzzy keyword's values found beside the record
   * (PatternConditions.ts).
   */
  readonly test?: Fragment
  /** The relevance of a matching record; only read when results are ordered by score. */
  readonly score: Fragment
  /** The same relevance where `where` is known to hold, when it costs less to compute there (see `wordQuery`). */
  readonly scoreWhenMatched?: Fragment
  /**
   * In a first pass, where `score` is a lower bound: by how much each of its leaves may fall short of its relevance,
   * so that their sum bounds the whole score's shortfall. Absent or empty where `score` is exact.
   */
  readonly slack?: ReadonlyArray<Fragment>
  /**
   * Relations the condition or its score read beside the records, by name, each written once before the statement's
   * matches (a word's rows, found through the index once however many times the statement asks whether a record is
   * among them: PostgreSQL runs each sub-select of an expression on its own).
   */
  readonly relations?: ReadonlyArray<readonly [name: string, definition: Fragment]>
}

/**
 * How a search ranks: `exact`, or a `firstPass` that reads no document's whole tsvector and gives a lower bound and a
 * slack where the rank needs it. Search.ts then ranks exactly only the records whose upper bound can reach the page.
 */
export type Ranking = "exact" | "firstPass"

/** A condition that never holds. */
export const falseCondition = (sql: Sql): Compiled => ({ where: sql.literal("false"), score: sql.literal("0") })

/** A condition whose matches all score 1, as ES's filters and term-level queries on keywords. */
export const constantScore = (sql: Sql, where: Fragment): Compiled => ({ where, score: sql.literal("1") })

export const textQuery = (sql: Sql, field: TextField, tsquery: string): Compiled => ({
  where: sql`${field.tsvector} @@ ${tsquery}::tsquery`,
  score: sql`ts_rank(${field.tsvector}, ${tsquery}::tsquery)`
})

/** ts_rank of a one-word query on a tsvector holding the word `count` times: the same for every word and position. */
const rankOfWordFound = (count: number) =>
  `ts_rank('w:${Array.from({ length: count }, (_, index) => index + 1).join(",")}'::tsvector, 'w'::tsquery)`

/** The tiers of the word-count filter (migration 0180): tier `t` holds the words found at least 2 ** t times. */
const wordCountTiers = [1, 2, 3, 4, 5, 6] as const
/**
 * Where the key "<tier><word>" sets its bits in a filter, before the modulo by the filter's length: 16-bit slices of the
 * key's MD5, which migration 0180's builder reads from the same bytes. Computed here rather than by a SQL function: the
 * planner inlines a SQL function again at each call, and the 40 calls of a one-word search took 2–8 ms of planning for
 * a statement that ran in 0.2 ms.
 */
const keyBitSlices = (word: string, tier: number, count: number) => {
  const digest = createHash("md5").update(`${tier}${word}`, "utf8").digest()
  return Array.from({ length: count }, (_, which) => digest.readUInt16BE(2 * which))
}

/** The positions to_tsvector keeps of a word, at most (a tsvector could hold 256, but the parser stops at 255). */
const maxPositions = 255

/** The rank of a word held `count` times beyond that of a word held once. */
const rankBeyondOnce = (count: number) => `${rankOfWordFound(count)} - ${rankOfWordFound(1)}`

/**
 * In a first pass, by how much a word's rank on a record may exceed the rank of one position: up to the rank of the
 * most positions the filter's highest tier holding it allows (a record in tier 2 and not 3 holds it at most 7 times).
 * Tier 1 is tested first: a word held twice has its key in every lower tier, so a record whose tier 1 lacks a bit holds
 * the word at most once and needs no other test. Most matches of a word hold it once, and testing the higher tiers
 * first took half of a medium word's first pass (six tests of one or two bits each, in each of its matches).
 */
const shortfallOf = (sql: Sql, filter: Fragment, word: string) => {
  const mostPositions = (tier: number) => (tier === wordCountTiers.length ? maxPositions : 2 ** (tier + 1) - 1)
  const higherTiers = wordCountTiers
    .slice(1)
    .reverse()
    .map((tier) => sql`WHEN ${mayHold(sql, filter, word, tier)} THEN ${sql.literal(rankBeyondOnce(mostPositions(tier)))}`)
  return sql`CASE WHEN ${mayHold(sql, filter, word, 1)} THEN CASE ${sql.join(" ", false)(higherTiers)} ELSE ${sql.literal(rankBeyondOnce(mostPositions(1)))} END ELSE 0 END`
}

/**
 * Whether the filter may hold the key of `word` in `tier`: 4 bits a key in tiers 1 and 2, 8 in the higher ones
 * (sql.and parenthesises several conditions). The slices are integers computed here, written as literals: a
 * parameter each would make a first pass of a few words hundreds of parameters.
 */
const mayHold = (sql: Sql, filter: Fragment, word: string, tier: number) =>
  sql.and(
    keyBitSlices(word, tier, tier >= 3 ? 8 : 4).map(
      (slice) => sql`get_bit(${filter}, (${sql.literal(String(slice))} % length(${filter}))::int) = 1`
    )
  )

/**
 * One word. On a field with a filter of word counts (content), only the records whose filter may hold the word twice
 * are ranked on their tsvector, which is stored compressed out of the row: the others hold the word once, or not at
 * all, and a word found once ranks the same constant everywhere. A record known to match holds it
 * (`scoreWhenMatched`), so it reads nothing more than its row. A word in 1,067 of 100,000 generated documents was
 * repeated in 22 of them.
 * A first pass reads no tsvector: every record gets the rank of a word found once, and the word's shortfall as slack.
 */
export const wordQuery = (sql: Sql, field: TextField, word: string, ranking: Ranking): Compiled => {
  const general = textQuery(sql, field, anyOrAllQuery([word], "or"))
  const filter = field.wordCounts
  if (filter === undefined) return general
  const once = sql.literal(rankOfWordFound(1))
  if (ranking === "exact") {
    const ranked = sql`WHEN ${mayHold(sql, filter, word, 1)} THEN ${general.score}`
    return {
      where: general.where,
      score: sql`CASE ${ranked} WHEN ${general.where} THEN ${once} ELSE 0 END`,
      scoreWhenMatched: sql`CASE ${ranked} ELSE ${once} END`
    }
  }
  return {
    where: general.where,
    score: sql`CASE WHEN ${general.where} THEN ${once} ELSE 0 END`,
    scoreWhenMatched: once,
    slack: [shortfallOf(sql, filter, word)]
  }
}

/**
 * Several distinct words, any of which matches (`a | b`), in a first pass that reads no tsvector. ts_rank of such a
 * query is the mean over its words of each one's own rank (0 where it is absent), so where each word a record holds is
 * held once, the rank depends only on how many it holds: the rank of that many words found once each, a constant.
 * `present` tells, for each word, whether the record holds it, without reading its tsvector (its row among the rows
 * the index finds for the word); each word it holds adds its shortfall, divided as its rank is. Two medium words were
 * ranked on each of their matches' tsvectors (4,500 of 100,000 documents, 100 ms), as the minimal SQL does.
 */
export const anyWordFirstPass = (
  sql: Sql,
  field: TextField,
  words: ReadonlyArray<string>,
  present: ReadonlyArray<Fragment>,
  relations: ReadonlyArray<readonly [string, Fragment]>
): Compiled => {
  const general = textQuery(sql, field, anyOrAllQuery(words, "or"))
  const filter = field.wordCounts
  if (filter === undefined) return general
  // Stand-in words, the same number as the query's: ts_rank divides by the number of distinct words asked for.
  const asked = words.map((_, index) => `w${index}`)
  const rankOfHeld = (count: number) =>
    `ts_rank('${asked
      .slice(0, count)
      .map((word, index) => `${word}:${index + 1}`)
      .join(" ")}'::tsvector, '${asked.join(" | ")}'::tsquery)`
  const held = sql.join(" + ", false)(present.map((holds) => sql`(${holds})::int`))
  const score = sql`CASE ${held} ${sql.join(" ", false)(words.map((_, index) => sql.literal(`WHEN ${index + 1} THEN ${rankOfHeld(index + 1)}`)))} ELSE 0 END`
  return {
    where: general.where,
    test: sql`(${sql.or(present)})`,
    relations,
    score,
    scoreWhenMatched: score,
    slack: words.map(
      (word, index) =>
        sql`(CASE WHEN ${present[index]!} THEN ${shortfallOf(sql, filter, word)} ELSE 0 END) / ${sql.literal(String(words.length))}`
    )
  }
}
