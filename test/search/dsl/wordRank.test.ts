import { SqlClient, Statement } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { DocumentIndex } from "../../../src/search/DocumentIndex.ts"
import { PostgresDocumentIndex } from "../../../src/search/postgres/PostgresDocumentIndex.ts"
import { compileQuery } from "../../../src/search/postgres/dsl/Compile.ts"
import { makePostgresSearchBackend } from "../../../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../../../src/search/SearchBackend.ts"
import { testDatabase } from "../../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { textDocument } from "../../helpers/marks.ts"
import { search } from "./corpus.ts"

/**
 * A one-word query on content reads a matched document's whole tsvector only where a filter of the words the
 * document repeats says it may repeat the word (Leaves.ts, wordQuery). Its scores must stay ts_rank of the whole
 * tsvector, wherever a query puts the word: they are checked against ts_rank computed by the database itself. A page
 * of the best scores is chosen from a first pass that ranks only documents that may hold the word 8 times (Search.ts):
 * its pages must be those of the exact ranks.
 */

const project = "ranks"
const filler = (count: number) => Array.from({ length: count }, (_, n) => `filler${n % 97}`).join(" ")

const documents = [
  textDocument("once", "/data/once.txt", "alpha beta gamma"),
  textDocument("twice", "/data/twice.txt", "alpha beta alpha"),
  // More positions than to_tsvector keeps (255).
  textDocument("many", "/data/many.txt", "alpha ".repeat(300)),
  // Past position 16,383 every word is at the last position, so three occurrences are one there.
  textDocument("late", "/data/late.txt", `${filler(16_400)} alpha alpha alpha`),
  { ...textDocument("title-only", "/data/title-only.txt", "beta gamma"), metadata: { tika_metadata_title: "alpha report" } },
  { ...textDocument("title-once", "/data/title-once.txt", "alpha gamma"), metadata: { tika_metadata_title: "alpha" } },
  { ...textDocument("title-twice", "/data/title-twice.txt", "alpha alpha"), metadata: { tika_metadata_title: "alpha" } },
  textDocument("in-path", "/data/alpha/in-path.txt", "beta beta"),
  textDocument("beta-only", "/data/beta-only.txt", "beta"),
  textDocument("none", "/data/none.txt", "gamma delta"),
  // A word beyond ASCII: its filter keys are the MD5 of its UTF-8 bytes, in the database and in the search alike.
  textDocument("greek-1", "/data/greek-1.txt", "λόγος"),
  textDocument("greek-9", "/data/greek-9.txt", "λόγος ".repeat(9)),
  // For the first pass's bounds: a word held at each end of each tier of the word-count filter, and past 255.
  ...[1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 300].map((count) =>
    textDocument(`kappa-${count}`, `/data/kappa-${count}.txt`, "kappa ".repeat(count))
  ),
  // For ties at the top: a word held the most times to_tsvector keeps (255) in most documents, beside documents of the
  // same tier that hold it fewer times, paths interleaved.
  ...[100, 300, 70, 300, 255, 300, 64, 300, 300, 150, 300].map((count, index) =>
    textDocument(`sigma-${String.fromCharCode(97 + index)}`, `/data/sigma-${String.fromCharCode(97 + index)}.txt`, "sigma ".repeat(count))
  ),
  // For pages of the best ranks: a word held from once to 12 times, ties included.
  ...[1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 8, 9, 12].map((count, index) => {
    const id = `omega-${String(index).padStart(2, "0")}`
    return textDocument(id, `/data/${id}.txt`, `${"omega ".repeat(count)}tail`)
  }),
  // For several words any of which matches: each held from none to five times beside the other, three of them too.
  ...[0, 1, 2, 3, 5].flatMap((mu) =>
    [0, 1, 2, 5].flatMap((nu) =>
      mu + nu === 0
        ? []
        : [
            textDocument(`munu-${mu}-${nu}`, `/data/munu-${mu}-${nu}.txt`, `${"mu ".repeat(mu)}${"nu ".repeat(nu)}tail`),
            textDocument(`munuxi-${mu}-${nu}`, `/data/munuxi-${mu}-${nu}.txt`, `${"mu ".repeat(mu)}xi ${"nu ".repeat(nu)}tail`)
          ]
    )
  ),
  // For the first round of ranking: a word held twice in more documents than a page holds, and once in many more.
  ...Array.from({ length: 120 }, (_, index) => {
    const id = `zeta-${String(index).padStart(3, "0")}`
    return textDocument(id, `/data/${id}.txt`, index < 30 ? "zeta zeta" : "zeta")
  })
]

const loadCorpus = Effect.gen(function* () {
  yield* Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents))
  const sql = yield* SqlClient.SqlClient
  // A named entity whose mention is the word: other record types have no content to rank.
  yield* sql`INSERT INTO named_entities (project, id, document_id, root_id, mention, mention_norm, mention_norm_text_length,
      category, offsets, extractor, extractor_language, is_hidden)
    VALUES (${project}, 'ne-alpha', 'once', 'once', 'Alpha', 'alpha', 5, 'PERSON', ${[0]}::bigint[], 'CORENLP', 'ENGLISH', false)`
})

interface Ranks {
  /** ts_rank of the word on the whole content tsvector, 0 where the content lacks it. */
  readonly content: number
  readonly metadata: number
}

/** Each document's ranks for `word`, from the database's own ts_rank on the stored tsvectors. */
const ranksOf = (word: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; content: number; metadata: number }>`
        SELECT id,
          (CASE WHEN content_tsv @@ ${word}::tsquery THEN ts_rank(content_tsv, ${word}::tsquery) ELSE 0 END)::float8 AS content,
          (CASE WHEN metadata_tsv @@ ${word}::tsquery THEN ts_rank(metadata_tsv, ${word}::tsquery) ELSE 0 END)::float8 AS metadata
        FROM documents WHERE project = ${project}`,
      (rows) => new Map(rows.map((row): [string, Ranks] => [row.id, { content: row.content, metadata: row.metadata }]))
    )
  )

/** Each hit's score, by id: `search` answers the body or fails the test on any other status than 200. */
/** The ids and scores of a page of `body`'s hits, in order. */
const pageOf = (body: Record<string, unknown>) =>
  Effect.map(search(body, { path: `${project}/_search` }), (response) => response.hits.hits.map((hit) => [hit._id, hit._score] as const))

const hitsOf = (query: unknown) =>
  Effect.map(
    search({ size: 100, query }, { path: `${project}/_search` }),
    (response) => new Map(response.hits.hits.map((hit) => [hit._id, hit._score] as const))
  )

/** The hits of `query` are the records `expected` scores, with those scores. */
const expectScores = (query: unknown, expected: ReadonlyMap<string, number>) =>
  Effect.map(hitsOf(query), (hits) => {
    expect([...hits.keys()].sort()).toEqual([...expected.keys()].sort())
    for (const [id, score] of expected) expect(hits.get(id), id).toBeCloseTo(score, 6)
  })

/** Documents for which `score` gives a number, with it. */
const scored = (ranks: ReadonlyMap<string, Ranks>, score: (ranks: Ranks, id: string) => number | undefined) =>
  new Map(
    [...ranks].flatMap(([id, rank]) => {
      const value = score(rank, id)
      return value === undefined ? [] : [[id, value] as const]
    })
  )

const match = (word: string) => ({ match: { content: word } })

/** Ids and paths in code-unit order: byte order for these ASCII names, as the pages break ties on the path. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`one-word ranks on ${database}${skip ? ` (${postgresSkipReason})` : ""}`, () => {
    const corpus = Layer.effectDiscard(loadCorpus).pipe(
      Layer.provideMerge(PostgresDocumentIndex),
      Layer.provideMerge(testDatabase(database)),
      Layer.orDie
    )
    layer(Layer.provideMerge(makePostgresSearchBackend(0), corpus), { timeout: 60_000 })((it) => {
      it.effect("a word alone, as a term and as a one-word phrase ranks as ts_rank of the whole content", () =>
        Effect.gen(function* () {
          const alpha = yield* ranksOf("alpha")
          const expected = scored(alpha, (rank) => (rank.content > 0 ? rank.content : undefined))
          // Found once (here and past the last position), twice, and 255 times: three different ranks.
          expect(new Set([...expected.values()]).size).toBe(3)
          yield* expectScores(match("alpha"), expected)
          yield* expectScores({ term: { content: "alpha" } }, expected)
          yield* expectScores({ match_phrase: { content: "alpha" } }, expected)
        })
      )

      it.effect("a word beyond ASCII ranks as ts_rank of the whole content, and its page is the exact ranks' page", () =>
        Effect.gen(function* () {
          const logos = yield* ranksOf("λογος")
          const expected = scored(logos, (rank) => (rank.content > 0 ? rank.content : undefined))
          expect([...expected.keys()].sort()).toEqual(["greek-1", "greek-9"])
          expect(expected.get("greek-9")!).toBeGreaterThan(expected.get("greek-1")!)
          yield* expectScores(match("λόγος"), expected)
          expect((yield* pageOf({ size: 1, query: match("λόγος") })).map(([id]) => id)).toEqual(["greek-9"])
        })
      )

      it.effect("over the default fields, a record matched elsewhere than in its content gets no content rank", () =>
        Effect.gen(function* () {
          const alpha = yield* ranksOf("alpha")
          const documentScore = (rank: Ranks) => (rank.content + rank.metadata > 0 ? rank.content + rank.metadata : undefined)
          // The named entity matches through its mention alone (a keyword's score, 1).
          const expected = new Map([...scored(alpha, documentScore), ["ne-alpha", 1]])
          expect(expected.get("title-only")).toBe(alpha.get("title-only")!.metadata)
          yield* expectScores({ query_string: { query: "alpha" } }, expected)
          // A prefix ranks as the word it stands for here; a leading wildcard scores 1 in each field it matches.
          yield* expectScores({ query_string: { query: "alph*" } }, expected)
          const fieldsMatched = (rank: Ranks) => Number(rank.content > 0) + Number(rank.metadata > 0)
          yield* expectScores(
            { query_string: { query: "*lpha" } },
            new Map([...scored(alpha, (rank) => fieldsMatched(rank) || undefined), ["ne-alpha", 1]])
          )
          // The client's search: match_all and the type each add 1.
          const client = {
            bool: {
              must: [{ match_all: {} }, { bool: { should: [{ query_string: { query: "alpha" } }] } }, { match: { type: "Document" } }]
            }
          }
          yield* expectScores(
            client,
            scored(alpha, (rank) => {
              const score = documentScore(rank)
              return score === undefined ? undefined : 2 + score
            })
          )
        })
      )

      it.effect("a first pass bounds each rank between the rank of one position and that of its tier's most positions", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const query = { _tag: "Match", field: "content", text: "kappa", operator: "or" } as const
          const firstPass = yield* compileQuery(sql, query, "r", 0, true, "firstPass")
          const rows = yield* sql<{ id: string; low: number; high: number; exact: number }>`
            SELECT r.id, (${firstPass.score})::float8 AS low, (${firstPass.score} + ${sql.join(" + ", false)(firstPass.slack ?? [])})::float8 AS high,
              ts_rank(r.content_tsv, 'kappa'::tsquery)::float8 AS exact
            FROM document_records r WHERE r.project = ${project} AND ${firstPass.where}`
          expect(rows).toHaveLength(13)
          for (const row of rows) {
            const count = Number(row.id.slice("kappa-".length))
            expect(row.low, row.id).toBeCloseTo(rows.find((other) => other.id === "kappa-1")!.exact, 7)
            expect(row.exact, row.id).toBeGreaterThanOrEqual(row.low)
            // Within the margin Search.ts allows for rounding.
            expect(row.high + 1e-6 * (1 + row.high), row.id).toBeGreaterThanOrEqual(row.exact)
            // Tight at the top of each tier (2 ** (t + 1) - 1 positions, and the 255 to_tsvector keeps at most).
            if (count === 1 || [3, 7, 15, 31, 63, 300].includes(count)) expect(row.high, row.id).toBeCloseTo(row.exact, 5)
            else expect(row.high - row.exact, row.id).toBeGreaterThan(1e-5)
          }
        })
      )

      it.effect("every page of the best ranks is the page of the exact ranks", () =>
        Effect.gen(function* () {
          const omega = yield* ranksOf("omega")
          const best = [...scored(omega, (rank) => (rank.content > 0 ? rank.content : undefined))].sort(
            ([a, x], [b, y]) => y - x || byId(a, b)
          )
          expect(best).toHaveLength(14)
          // Held 12, 9, 8, 8, 7, 5, 4, 3, 3, 2, 2 times and once: nine ranks, the last three documents tied.
          expect(new Set(best.map(([, score]) => score)).size).toBe(9)
          const expectPage = (page: ReadonlyArray<readonly [string, number | null]>, expected: typeof best) => {
            expect(page.map(([id]) => id)).toEqual(expected.map(([id]) => id))
            page.forEach(([id, score], index) => expect(score, id).toBeCloseTo(expected[index]![1], 6))
          }
          // Pages that end among the documents ranked in the first pass, and past them.
          for (const size of [1, 2, 3, 5]) {
            for (let from = 0; from < best.length; from++) {
              expectPage(yield* pageOf({ from, size, query: match("omega") }), best.slice(from, from + size))
            }
          }
          // The client's order: the score, then the path.
          const byPath = [...best].sort(([a, x], [b, y]) => y - x || byId(`/data/${a}.txt`, `/data/${b}.txt`))
          const sort = [{ _score: { order: "desc" } }, { path: { order: "asc" } }]
          expectPage(yield* pageOf({ from: 3, size: 4, sort, query: match("omega") }), byPath.slice(3, 7))
        })
      )

      it.effect("only records whose rank a first pass bounds are ranked again, however few they are", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const backend = yield* SearchBackend
          const sort = [{ _score: { order: "desc" } }, { path: { order: "asc" } }]
          const body = { size: 25, sort, query: match("zeta") }
          const statements: Array<readonly [string, ReadonlyArray<unknown>]> = []
          const response = yield* backend
            .handle({ method: "POST", path: `${project}/_search`, query: new URLSearchParams(), body })
            .pipe(
              Statement.withTransformer((statement) =>
                Effect.sync(() => void statements.push(statement.compile())).pipe(Effect.as(statement))
              )
            )
          // Documents holding the word twice, by path.
          const hits = (response.body as { hits: { hits: ReadonlyArray<{ _id: string }> } }).hits.hits.map((hit) => hit._id)
          expect(hits).toEqual(Array.from({ length: 25 }, (_, index) => `zeta-${String(index).padStart(3, "0")}`))
          const [text, parameters] = statements.find(([text]) => text.includes("ranked AS MATERIALIZED"))!
          const rows = yield* sql.unsafe<Record<string, unknown>>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, parameters as Array<never>)
          const explained = Object.values(rows[0]!)[0]
          interface Node {
            readonly "Subplan Name"?: string
            readonly "Actual Rows": number
            readonly Plans?: ReadonlyArray<Node>
          }
          const nodes = (node: Node): ReadonlyArray<Node> => [node, ...(node.Plans ?? []).flatMap(nodes)]
          const plan = ((typeof explained === "string" ? JSON.parse(explained) : explained) as ReadonlyArray<{ Plan: Node }>)[0]!.Plan
          const ranked = nodes(plan).find((node) => node["Subplan Name"] === "CTE ranked")!
          // The 30 repeats, and at most a few the filter lets through by chance: the 90 others hold the word once, their
          // lower bound is their rank, and it is below the page's (fewer than four pages' worth of repeats took all 120
          // through the ranking).
          expect(ranked["Actual Rows"]).toBeGreaterThanOrEqual(30)
          expect(ranked["Actual Rows"]).toBeLessThan(40)
        })
      )

      it.effect("several words any of which matches rank as ts_rank of the whole content, and page as the exact ranks", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // Documents' rows alone (the type required), where a first pass bounds such words.
          const onDocuments = (query: unknown) => ({ bool: { must: [query], filter: [{ term: { type: "Document" } }] } })
          for (const text of ["mu nu", "nu mu xi"]) {
            const tsquery = text.split(" ").join(" | ")
            const rows = yield* sql<{ id: string; rank: number }>`
              SELECT id, ts_rank(content_tsv, ${tsquery}::tsquery)::float8 AS rank FROM documents
              WHERE project = ${project} AND content_tsv @@ ${tsquery}::tsquery`
            const exact = rows.map((row) => [row.id, row.rank] as const).sort(([a, x], [b, y]) => y - x || byId(a, b))
            // Every mix of counts ranks apart from the others but for the words' symmetry.
            expect(new Set(exact.map(([, rank]) => rank)).size).toBeGreaterThan(text === "mu nu" ? 10 : 15)
            yield* expectScores(onDocuments(match(text)), new Map(exact))
            for (const size of [1, 2, 3, 5]) {
              for (let from = 0; from < exact.length; from += size) {
                const page = yield* pageOf({ from, size, query: onDocuments(match(text)) })
                expect(
                  page.map(([id]) => id),
                  `${text} ${from} ${size}`
                ).toEqual(exact.slice(from, from + size).map(([id]) => id))
                page.forEach(([id, score], index) => expect(score, id).toBe(exact[from + index]![1]))
              }
            }
          }
        })
      )

      it.effect("documents tied at the most positions are paged by path, as the exact ranks are", () =>
        Effect.gen(function* () {
          const sigma = yield* ranksOf("sigma")
          const byPath = [...scored(sigma, (rank) => (rank.content > 0 ? rank.content : undefined))].sort(
            ([a, x], [b, y]) => y - x || byId(a, b)
          )
          // Seven documents at 255 positions and over tie; the others rank below them, each alone.
          expect(byPath.filter(([, score]) => score === byPath[0]![1])).toHaveLength(7)
          const sort = [{ _score: { order: "desc" } }, { path: { order: "asc" } }]
          for (const size of [1, 2, 3]) {
            for (let from = 0; from < byPath.length; from++) {
              const page = yield* pageOf({ from, size, sort, query: match("sigma") })
              expect(page.map(([id]) => id)).toEqual(byPath.slice(from, from + size).map(([id]) => id))
              page.forEach(([id, score], index) => expect(score, id).toBe(byPath[from + index]![1]))
            }
          }
        })
      )

      it.effect("among should clauses, in a must beside a should, and with every should clause required", () =>
        Effect.gen(function* () {
          const alpha = yield* ranksOf("alpha")
          const beta = yield* ranksOf("beta")
          const both = (id: string) => alpha.get(id)!.content + beta.get(id)!.content
          // One of two words: a record holding only beta has no alpha rank.
          yield* expectScores(
            { bool: { should: [match("alpha"), match("beta")] } },
            scored(alpha, (_, id) => (both(id) > 0 ? both(id) : undefined))
          )
          // Beyond eight should clauses, each is scored on its own.
          yield* expectScores(
            { bool: { should: [match("alpha"), ...Array.from({ length: 8 }, (_, index) => match(`absent${index}`))] } },
            scored(alpha, (rank) => (rank.content > 0 ? rank.content : undefined))
          )
          // Alpha is optional beside a required beta.
          yield* expectScores(
            { bool: { must: [match("beta")], should: [match("alpha")] } },
            scored(beta, (rank, id) => (rank.content > 0 ? both(id) : undefined))
          )
          // Both words required through minimum_should_match.
          yield* expectScores(
            { bool: { should: [match("alpha"), match("beta")], minimum_should_match: 2 } },
            scored(alpha, (rank, id) => (rank.content > 0 && beta.get(id)!.content > 0 ? both(id) : undefined))
          )
          // A should clause beside a must_not only.
          const gamma = yield* ranksOf("gamma")
          yield* expectScores(
            { bool: { should: [match("alpha")], must_not: [match("gamma")] } },
            scored(alpha, (rank, id) => (rank.content > 0 && gamma.get(id)!.content === 0 ? rank.content : undefined))
          )
        })
      )
    })
  })
}
