import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { DocumentIndex, type IndexedDocument } from "../../../src/search/DocumentIndex.ts"
import { elasticsearchLayers } from "../../../src/search/elasticsearch/Layer.ts"
import { type FakeElasticsearch, fakeElasticsearch, type RecordedRequest } from "./fakeElasticsearch.ts"

const hex = (char: string) => char.repeat(96)

const root: IndexedDocument = {
  id: hex("a"),
  path: "/data/mail/message.eml",
  dirname: "/data/mail",
  content: "Quarterly report from Zürich",
  contentLength: 2048,
  contentTextLength: 28,
  contentType: "message/rfc822",
  contentEncoding: "UTF-8",
  language: "ENGLISH",
  metadata: { tika_metadata_resourcename: "message.eml", tika_metadata_dc_title: "Report" },
  extractionDate: "2026-11-24T01:00:00.000Z",
  extractionLevel: 0,
  parentDocument: null,
  rootDocument: hex("a"),
  tags: [],
  nerTags: [],
  status: "INDEXED",
  duplicateId: hex("d")
}
const attachment: IndexedDocument = {
  ...root,
  id: hex("b"),
  content: "Attachment text",
  contentTextLength: 15,
  contentType: "text/plain",
  metadata: { tika_metadata_resourcename: "notes.txt" },
  extractionLevel: 1,
  parentDocument: root.id,
  duplicateId: undefined
}
const nested: IndexedDocument = {
  ...attachment,
  id: hex("c"),
  extractionLevel: 2,
  parentDocument: attachment.id,
  extractionError: "truncated"
}

/** The fake cluster and a DocumentIndex on it, with short timeouts and no retries so that failures show at once. */
const withIndex = <A, E>(
  use: (index: typeof DocumentIndex.Service, fake: FakeElasticsearch) => Effect.Effect<A, E>,
  address?: (fake: FakeElasticsearch) => string
) =>
  Effect.gen(function* () {
    const fake = yield* fakeElasticsearch
    const layer = elasticsearchLayers(address?.(fake) ?? fake.url, { requestTimeout: 1_000, maxRetries: 0 })
    return yield* Effect.flatMap(DocumentIndex, (index) => use(index, fake)).pipe(Effect.provide(layer))
  })

const lastRequest = (fake: FakeElasticsearch, path: string): RecordedRequest =>
  fake.requests.filter((request) => request.path === path).at(-1)!
const ndjsonLines = (request: RecordedRequest) =>
  request.body
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown)

describe("ElasticsearchDocumentIndex (recorded-protocol fake on loopback)", () => {
  it.scoped("creates the index with the reference's settings and mapping, once", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        expect(yield* index.indexExists("corpus")).toBe(false)
        expect(yield* index.createIndex("corpus")).toBe(true)
        const create = lastRequest(fake, "/corpus")
        expect(create.method).toBe("PUT")
        // Plain JSON, which Elasticsearch 7 accepts (it refuses the client's default compatible-with=8 media type).
        expect(create.headers["content-type"]).toBe("application/json")
        expect(create.headers.accept).toBe("application/json")
        const body = JSON.parse(create.body) as { settings: Record<string, unknown>; mappings: { properties: Record<string, unknown> } }
        expect(body.settings).toMatchObject({
          "index.number_of_shards": 1,
          "index.mapping.total_fields.limit": 100000,
          analysis: {
            analyzer: {
              folding: { tokenizer: "standard", filter: ["lowercase", "asciifolding"] },
              path_analyzer: { tokenizer: "path_tokenizer" }
            },
            tokenizer: { path_tokenizer: { type: "path_hierarchy" } },
            normalizer: { keyword_lowercase: { type: "custom", filter: ["lowercase"] } }
          }
        })
        expect(body.settings["index.query.default_field"]).toEqual(
          expect.arrayContaining(["content", "path", "tags", "metadata.tika_metadata_dc_title"])
        )
        expect(body.mappings.properties).toMatchObject({
          content: { type: "text", analyzer: "folding", index_options: "offsets" },
          join: { type: "join", relations: { Document: ["NamedEntity", "Duplicate"] } },
          type: { type: "keyword" },
          path: { type: "keyword" },
          dirname: { type: "keyword", fields: { tree: { type: "text", analyzer: "path_analyzer", fielddata: true } } },
          tags: { type: "keyword", normalizer: "keyword_lowercase" },
          extractionDate: { type: "date", format: "date_time" },
          extractionLevel: { type: "integer" },
          contentLength: { type: "long" },
          rootDocument: { type: "keyword" },
          isHidden: { type: "boolean", null_value: false }
        })
        expect(yield* index.indexExists("corpus")).toBe(true)
        // The cluster answers 400 resource_already_exists_exception the second time.
        expect(yield* index.createIndex("corpus")).toBe(false)
      })
    )
  )

  it.scoped("bulk-creates documents with the reference's _source fields, embedded ones routed by their root", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        yield* index.createIndex("corpus")
        expect(yield* index.bulkIndex("corpus", [root, attachment, nested])).toEqual({ indexed: 3, duplicates: 0 })
        const bulk = lastRequest(fake, "/_bulk")
        expect(bulk.method).toBe("POST")
        expect(bulk.headers["content-type"]).toBe("application/x-ndjson")
        const lines = ndjsonLines(bulk)
        expect(lines.filter((_, i) => i % 2 === 0)).toEqual([
          { create: { _index: "corpus", _id: root.id } },
          { create: { _index: "corpus", _id: attachment.id, routing: root.id } },
          { create: { _index: "corpus", _id: nested.id, routing: root.id } }
        ])
        expect(lines[1]).toEqual({
          type: "Document",
          join: { name: "Document" },
          path: root.path,
          dirname: "/data/mail",
          content: root.content,
          contentLength: 2048,
          contentTextLength: 28,
          contentType: "message/rfc822",
          contentEncoding: "UTF-8",
          language: "ENGLISH",
          metadata: root.metadata,
          extractionDate: "2026-11-24T01:00:00.000Z",
          extractionLevel: 0,
          parentDocument: null,
          rootDocument: root.id,
          tags: [],
          nerTags: [],
          status: "INDEXED"
        })
        expect(lines[5]).toMatchObject({
          parentDocument: attachment.id,
          rootDocument: root.id,
          extractionLevel: 2,
          extractionError: "truncated"
        })

        expect(yield* index.count("corpus")).toBe(3)
        expect(JSON.parse(lastRequest(fake, "/corpus/_count").body)).toEqual({ query: { term: { type: "Document" } } })
      })
    )
  )

  it.scoped("reads documents back by id, with routing only when it is the document's root", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        yield* index.bulkIndex("corpus", [root, attachment, nested])
        const { duplicateId: _, ...stored } = root
        expect(yield* index.get("corpus", root.id)).toEqual(Option.some(stored))
        expect(yield* index.get("corpus", nested.id, root.id)).toEqual(Option.some(nested))
        const get = lastRequest(fake, `/corpus/_doc/${nested.id}`)
        expect(get.method).toBe("GET")
        expect(get.query.get("routing")).toBe(root.id)
        expect(Option.isSome(yield* index.get("corpus", attachment.id))).toBe(true)
        expect(yield* index.get("corpus", attachment.id, attachment.id)).toEqual(Option.none())
        expect(yield* index.get("corpus", hex("f"))).toEqual(Option.none())
        // A missing index answers 404 index_not_found_exception: nothing there.
        expect(yield* index.get("elsewhere", root.id)).toEqual(Option.none())
        expect(yield* index.count("elsewhere")).toBe(0)
      })
    )
  )

  it.scoped("reads records an earlier Datashare wrote: missing fields get the reference reader's values", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        const source = {
          type: "Document",
          join: { name: "Document" },
          path: "/data/a.pdf",
          extractionDate: "2024-01-10T12:00:00.000Z",
          metadata: { tika_metadata_xmptpg_npages: 3 }
        }
        fake.indices.set("legacy", {
          settings: {},
          mappings: {},
          records: new Map([[hex("e"), { source, routing: hex("a"), version: 1 }]])
        })
        expect(yield* index.get("legacy", hex("e"), hex("a"))).toEqual(
          Option.some({
            id: hex("e"),
            path: "/data/a.pdf",
            dirname: "",
            content: "",
            contentLength: -1,
            contentTextLength: 0,
            contentType: "unknown",
            contentEncoding: "unknown",
            language: "ENGLISH",
            metadata: { tika_metadata_xmptpg_npages: "3" },
            extractionDate: "2024-01-10T12:00:00.000Z",
            extractionLevel: 0,
            parentDocument: null,
            rootDocument: hex("a"),
            tags: [],
            nerTags: [],
            status: "INDEXED"
          })
        )
      })
    )
  )

  it.scoped("keeps a document already indexed, and records a copy at another path as a Duplicate of it", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        yield* index.bulkIndex("corpus", [root, attachment])
        // The same file again at the same path: every create conflicts (409), nothing is recorded.
        expect(yield* index.bulkIndex("corpus", [root, attachment])).toEqual({ indexed: 0, duplicates: 0 })
        expect(lastRequest(fake, "/corpus/_mget").query.get("_source_includes")).toBe("path")

        const copy = { ...root, path: "/data/copies/message.eml", dirname: "/data/copies" }
        expect(yield* index.bulkIndex("corpus", [copy, attachment])).toEqual({ indexed: 0, duplicates: 1 })
        const duplicateLines = ndjsonLines(lastRequest(fake, "/_bulk"))
        expect(duplicateLines).toEqual([
          { create: { _index: "corpus", _id: root.duplicateId, routing: root.id } },
          { id: root.duplicateId, path: copy.path, documentId: root.id, type: "Duplicate", join: { name: "Duplicate", parent: root.id } }
        ])
        expect(fake.indices.get("corpus")?.records.get(root.duplicateId!)?.routing).toBe(root.id)
        // Duplicates are not Documents; the original is unchanged.
        expect(yield* index.count("corpus")).toBe(2)
        expect(yield* index.get("corpus", root.duplicateId!)).toEqual(Option.none())
        expect(Option.map(yield* index.get("corpus", root.id), (document) => document.path)).toEqual(Option.some(root.path))
        // Recording the same copy again changes nothing.
        expect(yield* index.bulkIndex("corpus", [copy])).toEqual({ indexed: 0, duplicates: 0 })
      })
    )
  )

  it.scoped("two copies of a new file in one batch: the first is indexed, the second is its Duplicate", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        const copy = { ...root, path: "/data/other/message.eml" }
        expect(yield* index.bulkIndex("corpus", [root, copy])).toEqual({ indexed: 1, duplicates: 1 })
        expect(Option.map(yield* index.get("corpus", root.id), (document) => document.path)).toEqual(Option.some(root.path))
      })
    )
  )

  it.scoped("a document the cluster refuses is left out; an overloaded cluster fails the batch so that it is tried again", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        fake.refuse.set(attachment.id, 400)
        expect(yield* index.bulkIndex("corpus", [root, attachment, nested])).toEqual({ indexed: 2, duplicates: 0 })
        fake.refuse.set(attachment.id, 429)
        const exit = yield* Effect.exit(index.bulkIndex("corpus", [attachment]))
        expect(exit).toStrictEqual(
          Exit.fail(expect.objectContaining({ _tag: "DocumentIndexUnavailable", reason: expect.stringContaining("429") }))
        )
      })
    )
  )

  it.scoped("sends the credentials of the address as Basic authentication", () =>
    withIndex(
      (index, fake) =>
        Effect.gen(function* () {
          yield* index.bulkIndex("corpus", [root])
          expect(yield* index.count("corpus")).toBe(1)
          expect(lastRequest(fake, "/corpus/_count").headers.authorization).toBe(
            `Basic ${Buffer.from("elastic:s3cret").toString("base64")}`
          )
        }),
      (fake) => {
        fake.credentials = "elastic:s3cret"
        return fake.url.replace("http://", "http://elastic:s3cret@")
      }
    )
  )

  it.scoped("a hanging cluster fails with DocumentIndexUnavailable once the request times out", () =>
    withIndex((index, fake) =>
      Effect.gen(function* () {
        fake.hang = true
        const failure = yield* Effect.flip(index.count("corpus"))
        expect(failure._tag).toBe("DocumentIndexUnavailable")
        expect(failure.message).toMatch(/^the document index is unavailable: Elasticsearch did not answer in time/)
      })
    )
  )

  it.scoped("an unreachable cluster fails with DocumentIndexUnavailable", () =>
    withIndex(
      (index) =>
        Effect.gen(function* () {
          const failure = yield* Effect.flip(index.get("corpus", root.id))
          expect(failure._tag).toBe("DocumentIndexUnavailable")
          expect(failure.message).toMatch(/^the document index is unavailable: Elasticsearch is unreachable/)
        }),
      () => "http://127.0.0.1:9"
    )
  )
})
