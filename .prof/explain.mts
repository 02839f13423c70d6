import { SqlClient, Statement } from "@effect/sql"
import { Effect, Layer } from "effect"
import { PostgresSearchBackend } from "../src/search/postgres/PostgresSearchBackend.ts"
import { SearchBackend } from "../src/search/SearchBackend.ts"
import { testDatabase } from "../test/engine/helpers.ts"
import { generateSearchCorpus, corpusProject } from "../bench/_searchCorpus.ts"

const query = process.argv[2] ?? "term50"
const body = {
  from: 0, size: 25,
  sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }],
  _source: { includes: ["*"], excludes: ["content", "content_translated"] },
  highlight: { max_analyzed_offset: 999999, fields: { content: { fragment_size: 280, number_of_fragments: 2, pre_tags: ["<mark>"], post_tags: ["</mark>"] } } },
  track_total_hits: true,
  query: { bool: {
    filter: { bool: { must: [{ terms: { contentType: ["application/pdf", "text/plain", "message/rfc822"] } }, { range: { extractionDate: { gte: "2021-03-01T00:00:00.000Z" } } }] } },
    must: [{ match_all: {} }, { bool: { should: [{ query_string: { query, default_operator: "OR" } }] } }, { match: { type: "Document" } }] } },
  aggs: {
    contentType: { terms: { field: "contentType", size: 25, order: { _count: "desc" } }, aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } } },
    language: { terms: { field: "language", size: 25, order: { _count: "desc" } }, aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } } },
    tags: { terms: { field: "tags", size: 25, order: { _count: "desc" } }, aggs: { bucket_truncate: { bucket_sort: { size: 25, from: 0 } } } }
  }
}
const program = Effect.gen(function* () {
  yield* generateSearchCorpus
  const sql = yield* SqlClient.SqlClient
  const backend = yield* SearchBackend
  const statements: Array<readonly [string, ReadonlyArray<unknown>]> = []
  yield* backend.handle({ method: "POST", path: `${corpusProject}/_search`, query: new URLSearchParams(), body }).pipe(
    Statement.withTransformer((s) => Effect.sync(() => { statements.push(s.compile()); return s })))
  for (const [text, params] of statements) {
    const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)
    console.log("-----\n" + text.slice(0, 3000) + "\n" + rows.map((r) => r["QUERY PLAN"]).join("\n"))
  }
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    yield* backend.handle({ method: "POST", path: `${corpusProject}/_search`, query: new URLSearchParams(), body })
    console.log("engine ms", Math.round(performance.now() - t))
  }
}).pipe(Effect.provide(PostgresSearchBackend.pipe(Layer.provideMerge(testDatabase("postgres")))), Effect.scoped)
Effect.runPromise(program)
