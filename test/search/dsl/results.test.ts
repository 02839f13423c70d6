import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DocumentIndex } from "../../../src/search/DocumentIndex.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { corpusLayer, document, ids, search } from "./corpus.ts"

const onlyDocuments = { match: { type: "Document" } }
const buckets = (body: unknown, name: string, options: { path?: string } = {}) =>
  Effect.map(search({ size: 0, ...(body as object) }, options), (response) => response.aggregations?.[name]?.buckets)

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`search engine results on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(corpusLayer(database), { timeout: 60_000 })((it) => {
      it.effect("terms buckets: count desc then key asc, size, key order, bucket_sort pages, lowercased tags, numeric keys, _index", () =>
        Effect.gen(function* () {
          const query = onlyDocuments
          expect(yield* buckets({ query, aggs: { contentType: { terms: { field: "contentType" } } } }, "contentType")).toEqual([
            { key: "application/pdf", doc_count: 2 },
            { key: "text/plain", doc_count: 2 },
            { key: "message/rfc822", doc_count: 1 }
          ])
          const firstTwo = yield* search({
            size: 0,
            query,
            aggs: { contentType: { terms: { field: "contentType", size: 2, order: { _key: "asc" } } } }
          })
          expect(firstTwo.aggregations?.contentType).toEqual({
            doc_count_error_upper_bound: 0,
            sum_other_doc_count: 2,
            buckets: [
              { key: "application/pdf", doc_count: 2 },
              { key: "message/rfc822", doc_count: 1 }
            ]
          })
          const page = {
            terms: { field: "contentType", size: 3, order: { _count: "desc" } },
            aggs: { bucket_truncate: { bucket_sort: { size: 1, from: 1 } } }
          }
          expect(yield* buckets({ query, aggs: { contentType: page } }, "contentType")).toEqual([{ key: "text/plain", doc_count: 2 }])
          expect(
            yield* buckets({ query, aggs: { contentType: { terms: { field: "contentType", min_doc_count: 2 } } } }, "contentType")
          ).toEqual([
            { key: "application/pdf", doc_count: 2 },
            { key: "text/plain", doc_count: 2 }
          ])
          expect(yield* buckets({ query, aggs: { category: { terms: { field: "contentTypeCategory" } } } }, "category")).toEqual([
            { key: "DOCUMENT", doc_count: 4 },
            { key: "EMAIL", doc_count: 1 }
          ])
          expect(yield* buckets({ query, aggs: { title: { terms: { field: "titleNorm", include: "m.*" } } } }, "title")).toEqual([
            { key: "merger meeting", doc_count: 1 },
            { key: "message.eml", doc_count: 1 }
          ])
          expect(yield* buckets({ aggs: { agg_terms_tags: { terms: { field: "tags" } } } }, "agg_terms_tags")).toEqual([
            { key: "urgent", doc_count: 2 },
            { key: "review", doc_count: 1 }
          ])
          expect(
            yield* buckets(
              { query, aggs: { extractionLevel: { terms: { field: "extractionLevel", order: { _key: "asc" } } } } },
              "extractionLevel"
            )
          ).toEqual([
            { key: 0, doc_count: 4 },
            { key: 1, doc_count: 1 }
          ])
          expect(
            yield* buckets({ query, aggs: { index: { terms: { field: "_index", size: 1000 } } } }, "index", {
              path: "corpus-a,corpus-b/_search"
            })
          ).toEqual([
            { key: "corpus-a", doc_count: 5 },
            { key: "corpus-b", doc_count: 1 }
          ])
        })
      )

      it.effect("the path tree: dirname.tree buckets with include/exclude, metric sub-aggregations and ordering by them", () =>
        Effect.gen(function* () {
          const tree = { terms: { field: "dirname.tree", order: { _key: "asc" } } }
          expect(yield* buckets({ query: onlyDocuments, aggs: { dirname: tree } }, "dirname")).toEqual([
            { key: "/data", doc_count: 5 },
            { key: "/data/docs", doc_count: 3 },
            { key: "/data/docs/sub", doc_count: 1 },
            { key: "/data/mail", doc_count: 2 },
            { key: "/data/mail/2023", doc_count: 2 }
          ])
          const children = (order: Record<string, string>) => ({
            terms: { field: "dirname.tree", include: "/data/.*", exclude: "/data/.*/.*", size: 50, order },
            aggs: { bucket_truncate: { bucket_sort: { size: 50, from: 0 } }, size: { sum: { field: "contentLength" } } }
          })
          expect(yield* buckets({ query: onlyDocuments, aggs: { dirname: children({ size: "desc" }) } }, "dirname")).toEqual([
            { key: "/data/docs", doc_count: 3, size: { value: 2170 } },
            { key: "/data/mail", doc_count: 2, size: { value: 800 } }
          ])
          expect(
            (yield* buckets({ query: onlyDocuments, aggs: { dirname: children({ size: "asc" }) } }, "dirname"))?.map((bucket) => bucket.key)
          ).toEqual(["/data/mail", "/data/docs"])
          const stats = yield* search({
            size: 0,
            query: onlyDocuments,
            aggs: {
              total_directories: { cardinality: { field: "dirname" } },
              total_size: { sum: { field: "contentLength" } },
              directory_paths: { terms: { field: "dirname", include: "/data/docs/.*", size: 10000 } }
            }
          })
          expect(stats.aggregations?.total_directories).toEqual({ value: 3 })
          expect(stats.aggregations?.total_size).toEqual({ value: 2970 })
          expect(stats.aggregations?.directory_paths?.buckets).toEqual([{ key: "/data/docs/sub", doc_count: 1 }])
        })
      )

      it.effect("date_histogram: calendar months and years, format, missing, min_doc_count, key order, empty buckets filled", () =>
        Effect.gen(function* () {
          const months = {
            date_histogram: {
              field: "extractionDate",
              calendar_interval: "1M",
              format: "yyyy-MM",
              missing: "1970-01",
              min_doc_count: 1,
              order: { _key: "desc" }
            }
          }
          expect(yield* buckets({ query: onlyDocuments, aggs: { extractionDate: months } }, "extractionDate")).toEqual([
            { key_as_string: "2024-02", key: Date.UTC(2024, 1), doc_count: 3 },
            { key_as_string: "2024-01", key: Date.UTC(2024, 0), doc_count: 1 },
            { key_as_string: "2023-12", key: Date.UTC(2023, 11), doc_count: 1 }
          ])
          const years = {
            date_histogram: {
              field: "metadata.tika_metadata_dcterms_created",
              calendar_interval: "1y",
              format: "yyyy",
              missing: "1970",
              min_doc_count: 1
            }
          }
          expect(yield* buckets({ query: onlyDocuments, aggs: { created: years } }, "created")).toEqual([
            { key_as_string: "1970", key: 0, doc_count: 2 },
            { key_as_string: "2020", key: Date.UTC(2020, 0), doc_count: 1 },
            { key_as_string: "2021", key: Date.UTC(2021, 0), doc_count: 2 }
          ])
          const filled = yield* buckets(
            {
              query: onlyDocuments,
              aggs: {
                created: {
                  date_histogram: { field: "metadata.tika_metadata_dcterms_created", calendar_interval: "month", format: "yyyy-MM" }
                }
              }
            },
            "created"
          )
          expect(filled?.length).toBe(21)
          expect(filled?.[0]).toEqual({ key_as_string: "2020-03", key: Date.UTC(2020, 2), doc_count: 1 })
          expect(filled?.[1]).toEqual({ key_as_string: "2020-04", key: Date.UTC(2020, 3), doc_count: 0 })
          expect(filled?.reduce((total, bucket) => total + Number(bucket.doc_count), 0)).toBe(3)
          const days = {
            date_histogram: { field: "extractionDate", fixed_interval: "1d", format: "yyyy-MM-dd", min_doc_count: 1 },
            aggs: { size: { sum: { field: "contentLength" } } }
          }
          expect(yield* buckets({ query: { range: { extractionDate: { gte: "2024-02-01" } } }, aggs: { days } }, "days")).toEqual([
            { key_as_string: "2024-02-05", key: Date.UTC(2024, 1, 5), doc_count: 1, size: { value: 2000 } },
            { key_as_string: "2024-02-20", key: Date.UTC(2024, 1, 20), doc_count: 2, size: { value: 800 } }
          ])
        })
      )

      it.effect("sum, max of a date, cardinality; terms with a max sub-aggregation as the project list reads it", () =>
        Effect.gen(function* () {
          const response = yield* search({
            size: 0,
            query: onlyDocuments,
            aggs: {
              total: { sum: { field: "contentLength" } },
              latest: { max: { field: "extractionDate" } },
              count: { cardinality: { field: "tags" } },
              index: { terms: { field: "_index", size: 1000 }, aggs: { maxExtractionDate: { max: { field: "extractionDate" } } } }
            }
          })
          expect(response.aggregations?.total).toEqual({ value: 2970 })
          expect(response.aggregations?.latest).toEqual({ value: Date.UTC(2024, 1, 20, 16), value_as_string: "2024-02-20T16:00:00.000Z" })
          expect(response.aggregations?.count).toEqual({ value: 2 })
          expect(response.aggregations?.index?.buckets).toEqual([
            {
              key: "corpus-a",
              doc_count: 5,
              maxExtractionDate: { value: Date.UTC(2024, 1, 20, 16), value_as_string: "2024-02-20T16:00:00.000Z" }
            }
          ])
          const none = yield* search({
            size: 0,
            query: { match_none: {} },
            aggs: { total: { sum: { field: "contentLength" } }, latest: { max: { field: "extractionDate" } } }
          })
          expect(none.aggregations).toEqual({ total: { value: 0 }, latest: { value: null } })
        })
      )

      it.effect(
        "sort: score then path, fields both ways with missing last, the string and short forms, unmapped fields, the offsets script",
        () =>
          Effect.gen(function* () {
            expect(
              yield* ids({ query: { match: { content: "quick" } }, sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }] })
            ).toEqual(["doc-fox", "doc-mail"])
            expect(yield* ids({ query: onlyDocuments, sort: [{ contentLength: { order: "desc" } }] })).toEqual([
              "doc-report",
              "doc-mail",
              "doc-attachment",
              "doc-fox",
              "doc-notes"
            ])
            const created = (order: string) => ({
              query: onlyDocuments,
              sort: [{ "metadata.tika_metadata_dcterms_created": { order, unmapped_type: "date" } }]
            })
            expect(yield* ids(created("desc"))).toEqual(["doc-mail", "doc-report", "doc-fox", "doc-attachment", "doc-notes"])
            expect(yield* ids(created("asc"))).toEqual(["doc-fox", "doc-report", "doc-mail", "doc-attachment", "doc-notes"])
            expect(yield* ids({ query: onlyDocuments, sort: "titleNorm" })).toEqual([
              "doc-fox",
              "doc-mail",
              "doc-attachment",
              "doc-notes",
              "doc-report"
            ])
            expect(yield* ids({ query: onlyDocuments, sort: [{ path: "desc" }, { _id: "asc" }] })).toEqual([
              "doc-attachment",
              "doc-mail",
              "doc-notes",
              "doc-report",
              "doc-fox"
            ])
            expect(yield* ids({ query: onlyDocuments, sort: [{ nosuchfield: { order: "desc" } }] })).toEqual([
              "doc-attachment",
              "doc-fox",
              "doc-mail",
              "doc-notes",
              "doc-report"
            ])
            const entities = yield* search({
              query: { term: { type: "NamedEntity" } },
              sort: [
                { _script: { type: "number", script: { source: "doc['offsets'].size()" }, order: "desc" } },
                { mentionNorm: { order: "asc" } }
              ]
            })
            expect(entities.hits.hits.map((hit) => hit._id)).toEqual(["ne-alice", "ne-paris", "ne-icij", "ne-john"])
            expect(entities.hits.hits.map((hit) => hit.sort)).toEqual([
              [3, "alice"],
              [2, "paris"],
              [1, "icij"],
              [1, "john doe"]
            ])
            expect(entities.hits.hits[0]?._score).toBeNull()
            const history = {
              query: { ids: { values: ["doc-notes", "doc-fox", "doc-mail"] } },
              sort: [
                {
                  _script: {
                    type: "number",
                    script: { source: "params.order.indexOf(doc._id.value)", params: { order: ["doc-notes", "doc-fox", "doc-mail"] } },
                    order: "asc"
                  }
                }
              ]
            }
            expect(yield* ids(history)).toEqual(["doc-notes", "doc-fox", "doc-mail"])
          })
      )

      it.effect("_source filtering in the body and the URL, from/size paging and track_total_hits", () =>
        Effect.gen(function* () {
          const fox = { query: { ids: { values: ["doc-fox"] } } }
          const excluded = yield* search({ ...fox, _source: { includes: ["*"], excludes: ["content", "content_translated"] } })
          expect(excluded.hits.hits[0]?._source?.content).toBeUndefined()
          expect(excluded.hits.hits[0]?._source?.path).toBe("/data/docs/fox.txt")
          expect((yield* search({ ...fox, _source: ["path", "metadata.tika_metadata_dc_creator"] })).hits.hits[0]?._source).toEqual({
            path: "/data/docs/fox.txt",
            metadata: { tika_metadata_dc_creator: "Alice Martin" }
          })
          expect((yield* search({ ...fox, _source: false })).hits.hits[0]?._source).toBeUndefined()
          expect((yield* search(fox, { query: { _source: "contentType,contentLength" } })).hits.hits[0]?._source).toEqual({
            contentType: "text/plain",
            contentLength: 120
          })
          const routed = yield* search({ query: { ids: { values: ["doc-attachment", "doc-mail"] } }, sort: "_id" })
          expect(routed.hits.hits.map((hit) => hit._routing)).toEqual(["doc-mail", undefined])
          const byPath = { query: onlyDocuments, sort: [{ path: "asc" }, { _id: "asc" }] }
          expect(yield* ids({ ...byPath, from: 1, size: 2 })).toEqual(["doc-report", "doc-notes"])
          expect((yield* search(byPath, { query: { size: "1", from: "4" } })).hits.hits.map((hit) => hit._id)).toEqual(["doc-mail"])
          expect((yield* search({ ...byPath, track_total_hits: false })).hits.total).toBeUndefined()
          expect((yield* search({ ...byPath, track_total_hits: 2 })).hits.total).toEqual({ value: 2, relation: "gte" })
          expect((yield* search({ ...byPath, size: 0, track_total_hits: true })).hits).toEqual({
            total: { value: 5, relation: "eq" },
            max_score: null,
            hits: []
          })
        })
      )

      it.effect(
        "highlight: <mark> fragments of whole sentences within fragment_size, the best ones first kept, no_match_size, folding",
        () =>
          Effect.gen(function* () {
            const marked = { pre_tags: ["<mark>"], post_tags: ["</mark>"] }
            const highlight = (query: unknown, options: Record<string, unknown>, id = "doc-fox") =>
              Effect.map(
                search({
                  query: { bool: { must: [query], filter: { ids: { values: [id] } } } },
                  highlight: { fields: { content: { ...marked, ...options } } }
                }),
                (response) => response.hits.hits[0]?.highlight
              )
            expect(yield* highlight({ query_string: { query: "quick" } }, { fragment_size: 280, number_of_fragments: 2 })).toEqual({
              content: ["The <mark>quick</mark> brown fox jumps over the lazy dog. Foxes are clever animals."]
            })
            expect(yield* highlight({ query_string: { query: "clever" } }, { fragment_size: 30 })).toEqual({
              content: ["Foxes are <mark>clever</mark> animals."]
            })
            const lazyDogAnimals = { query_string: { query: "lazy OR dog OR animals" } }
            expect(yield* highlight(lazyDogAnimals, { fragment_size: 50, number_of_fragments: 1 })).toEqual({
              content: ["The quick brown fox jumps over the <mark>lazy</mark> <mark>dog</mark>."]
            })
            expect(yield* highlight(lazyDogAnimals, { fragment_size: 50, number_of_fragments: 2 })).toEqual({
              content: ["The quick brown fox jumps over the <mark>lazy</mark> <mark>dog</mark>.", "Foxes are clever <mark>animals</mark>."]
            })
            expect(yield* highlight({ query_string: { query: '"quick brown"' } }, { fragment_size: 280 })).toEqual({
              content: ["The <mark>quick</mark> <mark>brown</mark> fox jumps over the lazy dog. Foxes are clever animals."]
            })
            expect(yield* highlight({ match: { content: "cafe" } }, {}, "doc-report")).toEqual({
              content: ["The <mark>café</mark> served crème brûlée to the board."]
            })
            expect(yield* highlight({ match_all: {} }, { no_match_size: 20 }, "doc-notes")).toEqual({ content: ["Notes: lazy"] })
            expect(yield* highlight({ match_all: {} }, {}, "doc-notes")).toBeUndefined()
            expect(yield* highlight({ query_string: { query: "fox", fields: ["path.parts"] } }, {})).toBeUndefined()
          })
      )

      it.effect("a highlight past max_analyzed_offset is the same whether the text is read whole or cut", () =>
        Effect.gen(function* () {
          const index = yield* DocumentIndex
          // Read whole (fewer bytes than twice the characters a page reads: the offset and a 65,536 margin) and cut.
          const text = (words: number) => `gamma is here. ${"word ".repeat(words)}gamma again.`
          yield* index.bulkIndex("long-texts", [
            document({ id: "whole", path: "/long/whole.txt", content: text(14_000) }),
            document({ id: "cut", path: "/long/cut.txt", content: text(30_000) })
          ])
          const response = yield* search(
            {
              query: { match: { content: "gamma" } },
              sort: [{ path: { order: "asc" } }],
              highlight: { fields: { content: { max_analyzed_offset: 20 } } }
            },
            { path: "long-texts/_search" }
          )
          expect(response.hits.hits.map((hit) => [hit._id, hit.highlight?.content])).toEqual([
            ["cut", ["<em>gamma</em> is here."]],
            ["whole", ["<em>gamma</em> is here."]]
          ])
        })
      )

      it.effect("one id in two indices, and an odd id: each hit has its own record, source and highlight", () =>
        Effect.gen(function* () {
          const index = yield* DocumentIndex
          // An id written with the characters an array literal quotes: the page asks for its records by a list of ids.
          const odd = "odd,{\"id\"}\\ 'x'"
          yield* index.bulkIndex("twins-a", [
            document({ id: "twin", path: "/a/twin.txt", content: "A twin in the north." }),
            document({ id: odd, path: "/a/z-odd.txt", content: "An odd twin." })
          ])
          yield* index.bulkIndex("twins-b", [document({ id: "twin", path: "/b/twin.txt", content: "A twin in the south." })])
          const response = yield* search(
            { query: { match: { content: "twin" } }, sort: [{ path: { order: "desc" } }], highlight: { fields: { content: {} } } },
            { path: "twins-a,twins-b/_search" }
          )
          expect(response.hits.hits.map((hit) => [hit._index, hit._id, hit._source?.path, hit.highlight?.content])).toEqual([
            ["twins-b", "twin", "/b/twin.txt", ["A <em>twin</em> in the south."]],
            ["twins-a", odd, "/a/z-odd.txt", ["An odd <em>twin</em>."]],
            ["twins-a", "twin", "/a/twin.txt", ["A <em>twin</em> in the north."]]
          ])
        })
      )
    })
  })
}
