import { SqlClient, Statement } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../src/search/postgres/PostgresDocumentIndex.ts"
import { makePostgresSearchBackend } from "../../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../../src/search/SearchBackend.ts"
import { testDatabase } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"

/**
 * The plans of the searches users send: a selective search must reach its matches through an index, never by
 * reading every document of the project (a sequential scan, or an index scan on the project alone with the query as
 * a filter, which decompressed every document's words). The SQL is the engine's own, captured as it runs.
 */

const project = "plans"
const documentCount = 10_000

/**
 * Words `w1` … `w2000`, low numbers frequent; a rare phrase, tag, content type, folder and day each on a few documents;
 * 400 words ending in "stack", each on one document.
 */
const generateCorpus = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO document_indices (project) VALUES (${project})`
  yield* sql`SELECT setseed(0.2)`
  yield* sql`
    INSERT INTO documents (project, id, root_id, path, dirname, dirname_tree, content, content_type, content_length,
      content_text_length, content_encoding, language, metadata, extraction_date, extraction_level, tags, content_tsv)
    SELECT ${project}, 'doc-' || g, 'doc-' || g, dir || '/file-' || g || '.txt', dir, ARRAY['/data', '/data/d' || (g % 20), dir],
      words, CASE WHEN g % 500 = 0 THEN 'application/vnd.rare' ELSE 'text/plain' END, length(words), length(words), 'UTF-8',
      CASE WHEN g % 500 = 1 THEN 'WELSH' ELSE 'ENGLISH' END, jsonb_build_object('tika_metadata_resourcename', 'file-' || g || '.txt'),
      timestamptz '2021-01-01' + (g % 1000) * interval '1 day', CASE WHEN g % 500 = 2 THEN 1 ELSE 0 END,
      CASE WHEN g % 500 = 3 THEN ARRAY['Rare'] WHEN g % 2 = 0 THEN ARRAY['common'] ELSE '{}'::text[] END, to_tsvector('simple', words)
    FROM generate_series(1, ${documentCount}) AS g
    CROSS JOIN LATERAL (SELECT '/data/d' || (g % 20) || '/s' || (g % 50) AS dir) AS d
    CROSS JOIN LATERAL (
      SELECT string_agg('w' || floor(power(2000::float8, random()))::int, ' ') || CASE WHEN g % 500 = 4 THEN ' needle haystack' ELSE '' END
        || CASE WHEN g % 25 = 6 THEN ' p' || g || 'stack' ELSE '' END AS words
      FROM generate_series(1, 60) WHERE g > 0
    ) AS c`
  yield* Effect.flatMap(DocumentIndex, (index) => index.refresh())
})

/** The body the Datashare client sends for its result list, around `query` (a query_string or a filter). */
const clientBody = (query: unknown) => ({
  from: 0,
  size: 25,
  sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }],
  _source: { includes: ["*"], excludes: ["content", "content_translated"] },
  track_total_hits: true,
  query: { bool: { must: [{ match_all: {} }, query, { match: { type: "Document" } }] } }
})
const words = (query: string) => clientBody({ bool: { should: [{ query_string: { query } }] } })

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Index Cond"?: string
  readonly Filter?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** How a plan reads every document of the project, if it does. */
const wholeProjectReads = (plan: PlanNode) =>
  nodesOf(plan).flatMap((node) => {
    if (node["Node Type"] === "Seq Scan" && node["Relation Name"] === "documents") return ["Seq Scan on documents"]
    const onDocuments = node["Index Name"]?.startsWith("documents") === true
    const projectOnly = /project/.test(node["Index Cond"] ?? "") && !/ AND /.test(node["Index Cond"] ?? "")
    return onDocuments && projectOnly ? [`${node["Node Type"]} on ${node["Index Name"]} for the project alone`] : []
  })

/** The plan of the statement that finds a search's matches, as the engine sends it. */
const planOf = (body: unknown) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const backend = yield* SearchBackend
    const statements: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const response = yield* backend.handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body }).pipe(
      Statement.withTransformer((statement) =>
        Effect.sync(() => {
          statements.push(statement.compile())
          return statement
        })
      )
    )
    expect(response.status).toBe(200)
    const [text, parameters] = statements.find(([text]) => text.includes("matched AS MATERIALIZED"))!
    const rows = yield* sql.unsafe<Record<string, unknown>>(`EXPLAIN (FORMAT JSON) ${text}`, parameters as Array<never>)
    const explained = Object.values(rows[0]!)[0]
    const plan = (typeof explained === "string" ? JSON.parse(explained) : explained) as ReadonlyArray<{ Plan: PlanNode }>
    return { plan: plan[0]!.Plan, text, total: (response.body as { hits: { total: { value: number } } }).hits.total.value }
  })

const selectiveSearches: ReadonlyArray<readonly [string, unknown]> = [
  ["a rare word in the default fields", words("w1999")],
  ["two rare words", words("w1998 w1999")],
  ["a phrase", words('"needle haystack"')],
  ["a prefix", words("needl*")],
  ["a wildcard", words("ne?dl*")],
  ["a leading wildcard", words("*aystack")],
  ["a leading wildcard of hundreds of words", words("*stack")],
  ["a fuzzy word", words("haystak~1")],
  ["a regular expression", words("/hay.tack/")],
  ["ids", clientBody({ ids: { values: ["doc-1", "doc-2", "doc-3"] } })],
  ["the starred filter (terms on _id)", clientBody({ terms: { _id: ["doc-10", "doc-20"] } })],
  ["terms on tags, case-insensitively", clientBody({ terms: { tags: ["RARE"] } })],
  ["the path tree", clientBody({ term: { "dirname.tree": "/data/d3/s3" } })],
  ["a date range", clientBody({ range: { extractionDate: { gte: "2021-02-01", lt: "2021-02-03" } } })],
  ["the content type filter", clientBody({ bool: { filter: [{ terms: { contentType: ["application/vnd.rare"] } }] } })],
  ["the language filter", clientBody({ bool: { filter: [{ terms: { language: ["WELSH"] } }] } })],
  ["the extraction level filter", clientBody({ bool: { filter: [{ terms: { extractionLevel: [1] } }] } })],
  [
    "words with the client's filters",
    clientBody({
      bool: {
        must: [{ query_string: { query: "w1999 OR w1998" } }],
        filter: [{ terms: { contentType: ["text/plain"] } }, { terms: { language: ["ENGLISH"] } }]
      }
    })
  ]
]

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search plans on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    const corpus = Layer.effectDiscard(generateCorpus).pipe(
      Layer.provideMerge(PostgresDocumentIndex),
      Layer.provideMerge(testDatabase(database)),
      Layer.orDie
    )
    layer(Layer.provideMerge(makePostgresSearchBackend(0), corpus), { timeout: 120_000 })((it) => {
      for (const [name, body] of selectiveSearches) {
        it.effect(`${name} reads its matches through an index`, () =>
          Effect.gen(function* () {
            const { plan, total } = yield* planOf(body)
            // Selective: a few percent of the project at most, so that reading it all is never the better plan.
            expect(total).toBeGreaterThan(0)
            expect(total).toBeLessThan(documentCount / 20)
            expect(wholeProjectReads(plan)).toEqual([])
          })
        )
      }

      for (const field of ["contentType", "language", "extractionLevel", "extractionDate"]) {
        it.effect(`a facet of ${field} over the whole project reads an index, not the documents`, () =>
          Effect.gen(function* () {
            const facet =
              field === "extractionDate" ? { date_histogram: { field, calendar_interval: "1M" } } : { terms: { field, size: 25 } }
            const { plan, total } = yield* planOf({ ...clientBody({ match_all: {} }), size: 0, aggs: { facet } })
            expect(total).toBe(documentCount)
            expect(
              nodesOf(plan)
                .filter((node) => node["Relation Name"] === "documents")
                .map((node) => node["Node Type"])
            ).toEqual(["Index Only Scan"])
          })
        )
      }

      it.effect("one word reads a document's whole tsvector for its rank only where the document may repeat it", () =>
        Effect.gen(function* () {
          const unguardedRank = /(?<!THEN )ts_rank\(r\.content_tsv\b/
          const oneWord = yield* planOf(words("w1999"))
          const bit = String.raw`get_bit\(r\.content_word_counts, \(\d+ % length\(r\.content_word_counts\)\)::int\) = 1`
          expect(oneWord.text).toMatch(
            new RegExp(String.raw`WHEN \(${bit} AND ${bit} AND ${bit} AND ${bit}\) THEN ts_rank\(r\.content_tsv\b`)
          )
          expect(oneWord.text).not.toMatch(unguardedRank)
          // The first pass, which reads every match, reads no tsvector for a rank: the candidates are ranked after it.
          const [firstPass, candidates] = oneWord.text.split("top_bound AS (")
          expect(firstPass).not.toContain("ts_rank(r.content_tsv")
          expect(candidates).toContain("ts_rank(r.content_tsv")
          // Up to eight words are bounded in a first pass; past them the search ranks in one.
          const shouldWords = (count: number) => ({
            size: 1,
            query: { bool: { should: Array.from({ length: count }, (_, index) => ({ match: { content: `w${1990 + index}` } })) } }
          })
          expect((yield* planOf(shouldWords(8))).text).toContain("ranked AS MATERIALIZED")
          expect((yield* planOf(shouldWords(9))).text).not.toContain("ranked AS MATERIALIZED")
          // Two words any of which matches: the first pass reads no tsvector either, but whether each word is held, from
          // the rows the index finds for it, read once for the statement however often the statement asks.
          const twoWords = yield* planOf(words("w1998 w1999"))
          const [firstPassOfTwo = "", candidatesOfTwo] = twoWords.text.split("top_bound AS (")
          expect(firstPassOfTwo).not.toContain("ts_rank(r.content_tsv")
          expect(firstPassOfTwo.match(/\brows_content_tsv_[0-9a-f]{32} AS MATERIALIZED/g)).toHaveLength(2)
          expect(firstPassOfTwo.match(/r\.row_tid IN \(SELECT row_tid FROM rows_content_tsv_/g)?.length).toBeGreaterThanOrEqual(4)
          // The candidates are ranked on their whole tsvector: the check sees it.
          expect(candidatesOfTwo).toMatch(unguardedRank)
        })
      )

      it.effect("the records a first pass leaves to rank are found again by their row's place, documents by a TID scan", () =>
        Effect.gen(function* () {
          const documents = yield* planOf(words("w1"))
          expect(documents.text).toContain("r.row_tid = m.row_tid")
          expect(nodesOf(documents.plan).map((node) => node["Node Type"])).toContain("Tid Scan")
          // Records of every type are found again by index, id and path: a row's place names no record type.
          const everyType = yield* planOf({ size: 25, query: { match: { content: "w1" } } })
          expect(everyType.text).toContain("r.id = m.id")
          expect(everyType.text).not.toContain("row_tid")
        })
      )

      it.effect("an expansion is asked of the index in pieces, and tested on one record as its row among those the pieces find", () =>
        Effect.gen(function* () {
          const { text, total } = yield* planOf(words("*stack"))
          expect(total).toBe(420)
          const asked = (sql: string, alias: string) =>
            [...sql.matchAll(new RegExp(String.raw`\b${alias}\.content_tsv @@ \(SELECT \$\d+::tsquery\)`, "g"))].length
          // 401 words ("haystack" and the 400 others) in pieces of 32, each a sub-select, in the condition of the matches;
          // their score (where path and metadata do not match) looks for the record's row among the rows the same
          // pieces find, a relation written once for the statement, and reads no record's tsvector.
          const [scores = "", condition = ""] = text.split("FROM document_records r WHERE")
          expect(asked(condition, "r")).toBe(13)
          expect(asked(scores, "r")).toBe(0)
          expect(scores.match(/\brows_content_tsv_[0-9a-f]{32} AS MATERIALIZED \(SELECT x\.row_tid FROM document_records x/g)).toHaveLength(
            1
          )
          expect(scores).toMatch(/r\.row_tid IN \(SELECT row_tid FROM rows_content_tsv_[0-9a-f]{32}\)/)
          expect(asked(scores, "x")).toBe(13)
          const excluding = (types: ReadonlyArray<unknown>) =>
            planOf({
              size: 25,
              query: { bool: { must: [{ match: { content: "w1" } }, ...types], must_not: [{ wildcard: { content: "*stack" } }] } }
            })
          const documents = yield* excluding([{ match: { type: "Document" } }])
          // A count reads the same relation: it is written before its statement too.
          const backend = yield* SearchBackend
          const counted = yield* backend.handle({
            method: "POST",
            path: `${project}/_count`,
            query: new URLSearchParams(),
            body: {
              query: {
                bool: {
                  must: [{ match: { content: "w1" } }, { match: { type: "Document" } }],
                  must_not: [{ wildcard: { content: "*stack" } }]
                }
              }
            }
          })
          expect(counted.status).toBe(200)
          expect((counted.body as { count: number }).count).toBe(documents.total)
          expect(documents.text).toMatch(/NOT coalesce\(r\.row_tid IN \(SELECT row_tid FROM rows_content_tsv_[0-9a-f]{32}\)/)
          expect(asked(documents.text, "r")).toBe(0)
          // Records of every type have no row place: there the words are tested on the record, in one tsquery.
          const everyType = yield* excluding([])
          expect(asked(everyType.text, "r")).toBe(1)
          expect(everyType.text).toMatch(/NOT coalesce\(r\.content_tsv @@ \(SELECT \$\d+::tsquery\), false\)/)
        })
      )

      it.effect("fuzzy terms over the default fields test no document's words again once the indexes found them", () =>
        Effect.gen(function* () {
          const { plan, text, total } = yield* planOf(words("haystak~1 neddle~1"))
          expect(total).toBe(documentCount / 500)
          // The paths within the distance are found once, a condition the path's index answers exactly.
          expect(text).toContain("r.path = ANY(ARRAY(SELECT DISTINCT x.path FROM document_records x")
          const filters = nodesOf(plan).flatMap((node) => (node.Filter === undefined ? [] : [node.Filter]))
          expect(filters.filter((filter) => filter.includes("content_tsv"))).toEqual([])
        })
      )

      it.effect("a prefix over the default fields tests no document's words again once the indexes found them", () =>
        Effect.gen(function* () {
          const { plan, text } = yield* planOf(words("needl*"))
          expect(text).toContain("r.path ~>=~")
          const filters = nodesOf(plan).flatMap((node) => (node.Filter === undefined ? [] : [node.Filter]))
          expect(filters.filter((filter) => filter.includes("content_tsv"))).toEqual([])
          // With `LIKE`, the path's range was tested again, and the OR holding it with every match's words.
          const like = yield* planOf(
            clientBody({ bool: { should: [{ wildcard: { content: "needl*" } }, { wildcard: { path: "*needl*" } }] } })
          )
          expect(nodesOf(like.plan).some((node) => node.Filter?.includes("content_tsv") === true)).toBe(false)
        })
      )

      it.effect("the check fails on a plan that reads the whole project", () =>
        Effect.gen(function* () {
          // A word in half of the documents is better read whole: the check sees it.
          const { plan } = yield* planOf(words("w1"))
          expect(wholeProjectReads(plan).length).toBeGreaterThan(0)
        })
      )
    })
  })
}
