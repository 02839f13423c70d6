/**
 * The search-scale benchmark's requests: query classes drawn from a corpus's own word frequencies, each with the body
 * the Datashare 11.5 client sends and the same words as a tsquery for the baseline.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { fold } from "../src/search/postgres/TextIndex.ts"
import { clientQuery, searchBody } from "./_clientSearch.ts"
import { random } from "./_scaleCorpus.ts"

/** Documents read for word frequencies and phrases: enough that a "rare" word (one of them) is rare indeed. */
const sampleDocuments = 3_000

export type QueryClass = "common" | "medium" | "rare" | "twoWords" | "phrase" | "facets"
export const classes: ReadonlyArray<QueryClass> = ["common", "medium", "rare", "twoWords", "phrase", "facets"]

export interface Query {
  readonly queryClass: QueryClass
  readonly body: unknown
  /** The same words for the baseline: `|` between words (query_string's default OR), `<->` in a phrase. */
  readonly tsquery: string
}

const termsFacet = (field: string) => ({
  terms: { field, size: 25, order: { _count: "desc" } },
  aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } }
})

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The client's facet requests: no hits, the same query, one aggregation each. */
const facetAggregations = (root: string): ReadonlyArray<Record<string, unknown>> => [
  { contentType: termsFacet("contentType") },
  { language: termsFacet("language") },
  { tags: termsFacet("tags") },
  { extractionLevel: termsFacet("extractionLevel") },
  {
    dirname: {
      terms: {
        field: "dirname.tree",
        include: `${escapeRegex(root)}/.*`,
        exclude: `${escapeRegex(root)}/.*/.*`,
        size: 50,
        order: { _key: "asc" }
      }
    }
  },
  { extractionDate: { date_histogram: { field: "extractionDate", calendar_interval: "1M", format: "yyyy-MM", min_doc_count: 1 } } }
]

const facetBody = (words: string, aggs: Record<string, unknown>) => ({ size: 0, track_total_hits: true, query: clientQuery(words), aggs })

/** A deterministic shuffle, so that runs pick the same words. */
const shuffled = <A>(items: ReadonlyArray<A>, seed: number) => {
  const next = random(seed)
  return items
    .map((item) => [next(), item] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, item]) => item)
}

const plainWord = /^[a-z]{3,}$/

export interface QuerySet {
  readonly queries: ReadonlyArray<Query>
  /** Medium words no measured query uses, for warm-up requests. */
  readonly spareWords: ReadonlyArray<string>
  /** Every medium word, for the HTTP server's searches (a process of its own, so none is in its cache). */
  readonly mediumWords: ReadonlyArray<string>
}

/**
 * Words by document frequency in a sample of the corpus (ts_stat over its tsvectors): common in at least a quarter
 * of the documents, medium in 1–5 %, rare in one sampled document and at most three of the corpus; phrases are two
 * adjacent words of sampled texts; `perClass` of each class.
 */
export const pickQueries = (project: string, documents: number, root: string, perClass: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const perHundredThousand = Math.min(100_000, Math.round((sampleDocuments * 100_000) / documents))
    // The documents whose id's hash falls in the share: the same ones whatever pages the rows are on (a sample of
    // pages picked other words after the same corpus was written again). ts_stat takes its query as text; the
    // project names are this file's own.
    const sample = `FROM documents WHERE project = '${project}'
      AND ('x' || left(md5(id), 7))::bit(28)::int % 100000 < ${perHundredThousand}`
    const sampled = (yield* sql.unsafe<{ sampled: number }>(`SELECT count(*)::int AS sampled ${sample}`))[0]!.sampled
    const stats = yield* sql.unsafe<{ word: string; ndoc: number }>(
      `SELECT word, ndoc FROM ts_stat($$SELECT content_tsv ${sample}$$) ORDER BY word COLLATE "C"`
    )
    const words = stats.filter((row) => plainWord.test(row.word))
    const bucket = (test: (share: number, ndoc: number) => boolean, seed: number) =>
      shuffled(
        words.filter((row) => test(row.ndoc / sampled, row.ndoc)).map((row) => row.word),
        seed
      )
    const common = bucket((share) => share >= 0.25, 1).slice(0, perClass)
    const medium = bucket((share) => share >= 0.01 && share <= 0.05, 2)
    // A word once in the sample can be in hundreds of documents of a large corpus: a rare word is one the index finds
    // in at most three documents of the whole corpus, whatever its size.
    const rare: Array<string> = []
    for (const word of bucket((_, ndoc) => ndoc === 1, 3).slice(0, 200)) {
      if (rare.length === perClass) break
      const [counted] = yield* sql<{ documents: number }>`
        SELECT count(*)::int AS documents FROM documents WHERE project = ${project} AND content_tsv @@ ${word}::tsquery`
      if (counted!.documents <= 3) rare.push(word)
    }
    const texts = yield* sql.unsafe<{ text: string }>(
      `SELECT left(content, 4000) AS text ${sample} ORDER BY id COLLATE "C" LIMIT ${perClass * 4}`
    )
    const phrases = [
      ...new Set(
        texts.flatMap((row, index) => {
          const tokens = fold(row.text).split(/\s+/)
          const start = Math.floor(random(index)() * tokens.length)
          for (let i = start; i < tokens.length - 1; i++) {
            if (plainWord.test(tokens[i]!) && plainWord.test(tokens[i + 1]!)) return [`${tokens[i]} ${tokens[i + 1]}`]
          }
          return []
        })
      )
    ].slice(0, perClass)
    const single =
      (queryClass: QueryClass) =>
      (word: string): Query => ({ queryClass, body: searchBody(word), tsquery: word })
    const pairs = Array.from(
      { length: Math.min(perClass, Math.floor(medium.length / 2)) },
      (_, i) => [medium[2 * i]!, medium[2 * i + 1]!] as const
    )
    const facets = facetAggregations(root)
    const queries: Array<Query> = [
      ...common.map(single("common")),
      ...medium.slice(0, perClass).map(single("medium")),
      ...rare.map(single("rare")),
      ...pairs.map(([a, b]) => ({ queryClass: "twoWords" as const, body: searchBody(`${a} ${b}`), tsquery: `${a} | ${b}` })),
      ...phrases.map((phrase) => ({
        queryClass: "phrase" as const,
        body: searchBody(`"${phrase}"`),
        tsquery: phrase.replace(" ", " <-> ")
      })),
      ...medium
        .slice(0, perClass)
        .map((word, i) => ({ queryClass: "facets" as const, body: facetBody(word, facets[i % facets.length]!), tsquery: word }))
    ]
    return { queries: shuffled(queries, 4), spareWords: medium.slice(2 * perClass), mediumWords: medium } satisfies QuerySet
  })
