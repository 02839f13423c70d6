import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { corpusLayer, errorOf, project, type SearchResponse, send } from "./corpus.ts"

const refusedWith = (type: string, reasonPart: string) => (response: { status: number; body: unknown }) => {
  const body = response.body as {
    error: { type: string; reason: string; root_cause: ReadonlyArray<{ type: string; reason: string }> }
    status: number
  }
  expect(response.status).toBe(400)
  expect(body.status).toBe(400)
  expect(body.error.type).toBe(type)
  expect(body.error.root_cause[0]?.type).toBe(type)
  expect(body.error.reason).toContain(reasonPart)
}

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search backend endpoints and refusals on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect("_count with and without a body, _async_search answered complete, GET with a source parameter, the q parameter", () =>
        Effect.gen(function* () {
          expect((yield* send(`${project}/_count`)).body).toMatchObject({ count: 9 })
          expect((yield* send(`${project}/_count`, { query: { query_string: { query: "type:Document" } } })).body).toMatchObject({
            count: 5
          })
          const envelope = (yield* send(
            `${project},corpus-b/_async_search`,
            { query: { match: { content: "quick" } }, track_total_hits: true },
            { query: { wait_for_completion_timeout: "1s", keep_alive: "5m" } }
          )).body as Record<string, unknown>
          expect(envelope).toMatchObject({
            is_running: false,
            is_partial: false,
            response: { hits: { total: { value: 3, relation: "eq" } } }
          })
          expect(envelope.id).toBeUndefined()
          const viaGet = yield* send(`${project}/_search`, undefined, {
            method: "GET",
            query: { source: JSON.stringify({ query: { ids: { values: ["doc-fox"] } } }), source_content_type: "application/json" }
          })
          expect(viaGet.status).toBe(200)
          expect((viaGet.body as { hits: { total: { value: number } } }).hits.total.value).toBe(1)
          const q = yield* send(`${project}/_search`, undefined, { method: "GET", query: { q: "contentType:message\\/rfc822" } })
          expect((q.body as { hits: { hits: ReadonlyArray<{ _id: string }> } }).hits.hits.map((hit) => hit._id)).toEqual(["doc-mail"])
          expect((yield* send("_async_search/some-id", undefined, { method: "GET" })).status).toBe(404)
        })
      )

      it.effect("_doc and _source read one record with source filtering; missing records are 404", () =>
        Effect.gen(function* () {
          const attachment = yield* send(`${project}/_doc/doc-attachment`, undefined, {
            method: "GET",
            query: { routing: "doc-mail", _source_excludes: "content,content_translated" }
          })
          expect(attachment.status).toBe(200)
          expect(attachment.body).toMatchObject({
            _index: project,
            _id: "doc-attachment",
            _routing: "doc-mail",
            found: true,
            _source: { parentDocument: "doc-mail", extractionLevel: 1 }
          })
          expect((attachment.body as { _source: Record<string, unknown> })._source.content).toBeUndefined()
          const missing = yield* send(`${project}/_doc/nope`, undefined, { method: "GET" })
          expect(missing).toEqual({ status: 404, body: { _index: project, _id: "nope", found: false } })
          const source = yield* send(`${project}/_source/doc-fox`, undefined, { method: "GET", query: { _source: "path,tags" } })
          expect(source).toEqual({ status: 200, body: { path: "/data/docs/fox.txt", tags: ["Urgent", "Review"] } })
          const noSource = yield* send(`${project}/_source/nope`, undefined, { method: "GET" })
          expect(noSource.status).toBe(404)
          expect((noSource.body as { error: { type: string } }).error.type).toBe("resource_not_found_exception")
        })
      )

      it.effect("_mapping/field and HEAD tell which fields and indices exist; an unknown index is index_not_found_exception", () =>
        Effect.gen(function* () {
          expect((yield* send(`${project},corpus-b/_mapping/field/contentTypeCategory`, undefined, { method: "GET" })).body).toEqual({
            [project]: {
              mappings: { contentTypeCategory: { full_name: "contentTypeCategory", mapping: { contentTypeCategory: { type: "keyword" } } } }
            },
            "corpus-b": {
              mappings: { contentTypeCategory: { full_name: "contentTypeCategory", mapping: { contentTypeCategory: { type: "keyword" } } } }
            }
          })
          expect((yield* send(`${project}/_mapping/field/nosuchfield`, undefined, { method: "GET" })).body).toEqual({
            [project]: { mappings: {} }
          })
          expect((yield* send(project, undefined, { method: "HEAD" })).status).toBe(200)
          expect((yield* send("nope", undefined, { method: "HEAD" })).status).toBe(404)
          const unknown = yield* send(`${project},nope/_search`, {})
          expect(unknown.status).toBe(404)
          expect(unknown.body).toMatchObject({
            status: 404,
            error: {
              type: "index_not_found_exception",
              index: "nope",
              root_cause: [{ type: "index_not_found_exception", reason: "no such index [nope]" }]
            }
          })
        })
      )

      it.effect("scroll pages through every hit in order, with aggregations on the first page only, and refuses bad contexts", () =>
        Effect.gen(function* () {
          const body = {
            query: { match_all: {} },
            sort: [{ path: { order: "asc" } }],
            size: 2,
            aggs: { types: { terms: { field: "type" } } }
          }
          const all = (yield* send(`${project}/_search`, { ...body, size: 100 })).body as SearchResponse
          const first = yield* send(`${project}/_search`, body, { query: { scroll: "1m" } })
          expect(first.status).toBe(200)
          const opened = first.body as SearchResponse & { _scroll_id: string; aggregations?: unknown }
          expect(opened.aggregations).toBeDefined()
          const ids = opened.hits.hits.map((hit) => hit._id)
          const pages: Array<SearchResponse & { _scroll_id: string; aggregations?: unknown }> = []
          for (let turn = 0; turn < 10; turn++) {
            // The three forms clients use: the body, the URL parameters, the id as the last path segment.
            const next =
              turn % 3 === 0
                ? yield* send("_search/scroll", { scroll: "1m", scroll_id: opened._scroll_id })
                : turn % 3 === 1
                  ? yield* send("_search/scroll", undefined, { method: "GET", query: { scroll: "30s", scroll_id: opened._scroll_id } })
                  : yield* send(`_search/scroll/${opened._scroll_id}`, undefined, { method: "GET" })
            expect(next.status).toBe(200)
            const page = next.body as SearchResponse & { _scroll_id: string; aggregations?: unknown }
            pages.push(page)
            if (page.hits.hits.length === 0) break
            ids.push(...page.hits.hits.map((hit) => hit._id))
          }
          expect(ids).toEqual(all.hits.hits.map((hit) => hit._id))
          expect(ids.length).toBeGreaterThan(4)
          expect(pages.every((page) => page._scroll_id === opened._scroll_id && page.aggregations === undefined)).toBe(true)
          expect(pages.at(-1)?.hits.hits).toEqual([])
          expect(pages.at(-1)?.hits.total).toEqual(all.hits.total)

          const missing = yield* send("_search/scroll", { scroll_id: "no-such-scroll" })
          expect(missing.status).toBe(404)
          expect((missing.body as { error: { type: string } }).error.type).toBe("search_context_missing_exception")
          refusedWith(
            "illegal_argument_exception",
            "[from] is not allowed"
          )(yield* send(`${project}/_search`, { from: 2 }, { query: { scroll: "1m" } }))
          refusedWith("illegal_argument_exception", "too large")(yield* send(`${project}/_search`, {}, { query: { scroll: "2d" } }))
          refusedWith("parsing_exception", "time value")(yield* send(`${project}/_search`, {}, { query: { scroll: "soon" } }))
          refusedWith("illegal_argument_exception", "missing scroll ID")(yield* send("_search/scroll", {}))
        })
      )

      it.effect("unsupported constructs answer illegal_argument_exception naming them", () =>
        Effect.gen(function* () {
          const search = (body: unknown) => send(`${project}/_search`, body)
          refusedWith("illegal_argument_exception", "[script]")(yield* search({ query: { script: { script: "true" } } }))
          refusedWith(
            "illegal_argument_exception",
            "[nested]"
          )(yield* search({ query: { bool: { must: [{ nested: { path: "a", query: { match_all: {} } } }] } } }))
          refusedWith("illegal_argument_exception", "[function_score]")(yield* search({ query: { function_score: {} } }))
          refusedWith("illegal_argument_exception", "[suggest]")(yield* search({ suggest: {} }))
          refusedWith("illegal_argument_exception", "[search_after]")(yield* search({ search_after: [1] }))
          refusedWith("illegal_argument_exception", "[composite]")(yield* search({ aggs: { a: { composite: {} } } }))
          // Each aggregation may hold a node's working memory until the search ends: a hundred at most.
          const aggregations = (count: number) =>
            Object.fromEntries(Array.from({ length: count }, (_, index) => [`a${index}`, { terms: { field: "tags" } }]))
          refusedWith("illegal_argument_exception", "too many aggregations: [101]")(yield* search({ size: 0, aggs: aggregations(101) }))
          expect((yield* search({ size: 0, aggs: aggregations(100) })).status).toBe(200)
          refusedWith(
            "illegal_argument_exception",
            "[top_hits]"
          )(yield* search({ aggs: { a: { terms: { field: "tags" }, aggs: { t: { top_hits: {} } } } } }))
          refusedWith(
            "illegal_argument_exception",
            "[script]"
          )(yield* search({ sort: [{ _script: { type: "number", script: { source: "doc['x'].value * 2" } } }] }))
          refusedWith(
            "illegal_argument_exception",
            "[inner_hits]"
          )(yield* search({ query: { has_child: { type: "NamedEntity", query: { match_all: {} }, inner_hits: {} } } }))
          refusedWith("illegal_argument_exception", "Fielddata")(yield* search({ aggs: { a: { terms: { field: "content" } } } }))
          refusedWith("illegal_argument_exception", "fielddata")(yield* search({ sort: ["content"] }))
          refusedWith(
            "illegal_argument_exception",
            "[Foo] as a child"
          )(yield* search({ query: { has_child: { type: "Foo", query: { match_all: {} } } } }))
          refusedWith("illegal_argument_exception", "Result window is too large")(yield* search({ from: 9_990, size: 20 }))
        })
      )

      it.effect("malformed bodies answer parsing_exception; bad values and query_string syntax answer 400 too", () =>
        Effect.gen(function* () {
          const search = (body: unknown) => send(`${project}/_search`, body)
          refusedWith("parsing_exception", "unknown query [foo]")(yield* search({ query: { foo: {} } }))
          refusedWith("parsing_exception", "query malformed")(yield* search({ query: [] }))
          refusedWith("parsing_exception", "[size]")(yield* search({ size: "many" }))
          refusedWith("parsing_exception", "[bool]")(yield* search({ query: { bool: { must: 5 } } }))
          refusedWith("parsing_exception", "[term]")(yield* search({ query: { term: { a: "x", b: "y" } } }))
          refusedWith("parsing_exception", "Unknown key")(yield* search({ querry: {} }))
          refusedWith("parsing_exception", "[highlight]")(yield* search({ highlight: { fields: { content: { fragment_size: "big" } } } }))
          refusedWith(
            "query_shard_exception",
            "Failed to parse query [a AND]"
          )(yield* search({ query: { query_string: { query: "a AND" } } }))
          refusedWith(
            "query_shard_exception",
            "Failed to parse query"
          )(yield* search({ query: { query_string: { query: "(unbalanced" } } }))
          refusedWith("query_shard_exception", "Failed to parse query")(yield* search({ query: { query_string: { query: "path:/data" } } }))
          refusedWith("query_shard_exception", "For input string")(yield* search({ query: { term: { extractionLevel: "abc" } } }))
          refusedWith(
            "parse_exception",
            "failed to parse date field"
          )(yield* search({ query: { range: { extractionDate: { gte: "yesterday-ish" } } } }))
          refusedWith(
            "illegal_argument_exception",
            "invalid regular expression"
          )(yield* search({ query: { regexp: { contentType: "(" } } }))
          expect(yield* errorOf(`${project}/_count`, { size: 1 })).toEqual({ status: 400, type: "parsing_exception" })
          expect(yield* errorOf(`${project}/_search`, "a string")).toEqual({ status: 400, type: "parsing_exception" })
        })
      )
    })
  })
}
