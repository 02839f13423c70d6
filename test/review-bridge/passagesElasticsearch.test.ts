import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { bestPassages } from "../../src/domain/review-bridge/Passages.ts"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { elasticsearchLayers } from "../../src/search/elasticsearch/Layer.ts"
import { SearchBackend } from "../../src/search/SearchBackend.ts"
import { textDocument } from "../helpers/marks.ts"
import { fakeElasticsearch } from "../search/elasticsearch/fakeElasticsearch.ts"

const project = "local-datashare"

const documentNumber = (number: number) =>
  textDocument(String(number).padStart(96, "0"), `/data/${number}.txt`, `Offshore company ${number} signed the contract.`)

/** Runs `use` with 600 documents indexed in the fake cluster and only the passage requests recorded. */
const withCluster = <A, E>(
  use: (fake: Effect.Effect.Success<typeof fakeElasticsearch>, ids: ReadonlyArray<string>) => Effect.Effect<A, E, SearchBackend>
) =>
  Effect.gen(function* () {
    const fake = yield* fakeElasticsearch
    const documents = Array.from({ length: 600 }, (_, index) => documentNumber(index + 1))
    return yield* Effect.gen(function* () {
      const index = yield* DocumentIndex
      yield* index.createIndex(project)
      yield* index.bulkIndex(project, documents)
      fake.requests.length = 0
      return yield* use(
        fake,
        documents.map((document) => document.id)
      )
    }).pipe(Effect.provide(elasticsearchLayers(fake.url, { requestTimeout: 2_000, maxRetries: 0 })))
  })

const sentBody = (body: string) =>
  JSON.parse(body) as {
    query: { bool: { must: [{ ids: { values: Array<string> } }, { query_string: { query: string } }] } }
    highlight: unknown
    size: number
  }

describe("batch-search passages on Elasticsearch (recorded-protocol fake on loopback)", () => {
  it.scoped("asks the cluster for one highlighted passage per document, 500 ids a request, and reads the fragments it answers", () =>
    withCluster((fake, ids) =>
      Effect.gen(function* () {
        const passages = yield* bestPassages([project], "offshore", { phraseMatches: false, fuzziness: 0 }, ids)
        expect(passages.size).toBe(600)
        expect(passages.get(ids[41]!)).toBe("<em>Offshore</em> company 42 signed the contract.")

        expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
          `POST /${project}/_search`,
          `POST /${project}/_search`
        ])
        const bodies = fake.requests.map((request) => sentBody(request.body))
        expect(bodies.map((body) => body.query.bool.must[0].ids.values.length)).toEqual([500, 100])
        expect(bodies.flatMap((body) => body.query.bool.must[0].ids.values)).toEqual(ids)
        expect(bodies.map((body) => body.size)).toEqual([500, 100])
        expect(bodies[0]!.query.bool.must[1].query_string.query).toBe("offshore")
        expect(bodies[0]!.highlight).toEqual({ fields: { content: { fragment_size: 200, number_of_fragments: 1, no_match_size: 200 } } })
      })
    )
  )

  it.scoped("sends the batch search's phrase and fuzziness in the query, so the passage shows the same match", () =>
    withCluster((fake, ids) =>
      Effect.gen(function* () {
        const passages = yield* bestPassages([project], "company 7", { phraseMatches: true, fuzziness: 1 }, ids.slice(6, 7))
        expect([...passages]).toEqual([[ids[6], "Offshore <em>company</em> <em>7</em> signed the contract."]])
        expect(fake.requests.map((request) => sentBody(request.body).query.bool.must[1].query_string.query)).toEqual(['"company 7"~1'])
      })
    )
  )

  it.scoped("a cluster error leaves the documents without a passage instead of failing the review task", () =>
    withCluster((fake, ids) =>
      Effect.gen(function* () {
        const passages = yield* bestPassages(["missing-project"], "offshore", { phraseMatches: false, fuzziness: 0 }, ids.slice(0, 3))
        expect(passages.size).toBe(0)
        expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual(["POST /missing-project/_search"])
      })
    )
  )
})
