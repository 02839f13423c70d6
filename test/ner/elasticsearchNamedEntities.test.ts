import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { emailPipeline } from "../../src/ner/EmailPipeline.ts"
import { annotate } from "../../src/ner/Annotate.ts"
import { entitiesOf } from "../../src/ner/Pipeline.ts"
import { DocumentIndex, type IndexedDocument } from "../../src/search/DocumentIndex.ts"
import { elasticsearchLayers } from "../../src/search/elasticsearch/Layer.ts"
import { fakeElasticsearch } from "../search/elasticsearch/fakeElasticsearch.ts"

const root: IndexedDocument = {
  id: "a".repeat(96),
  path: "/data/mail/message.eml",
  dirname: "/data/mail",
  content: "From foo@bar.com to the desk",
  contentLength: 100,
  contentTextLength: 28,
  contentType: "message/rfc822",
  contentEncoding: "UTF-8",
  language: "ENGLISH",
  metadata: {},
  extractionDate: "2026-11-24T01:00:00.000Z",
  extractionLevel: 0,
  parentDocument: null,
  rootDocument: "a".repeat(96),
  tags: [],
  nerTags: [],
  status: "INDEXED"
}
const attachment: IndexedDocument = {
  ...root,
  id: "b".repeat(96),
  content: "Copy to foo@bar.com",
  contentTextLength: 19,
  extractionLevel: 1,
  parentDocument: root.id
}

describe("ElasticsearchDocumentIndex named entities (recorded-protocol fake on loopback)", () => {
  it.scoped("lists untagged documents, writes entities as routed children, marks documents, reads and hides entities", () =>
    Effect.gen(function* () {
      const fake = yield* fakeElasticsearch
      yield* Effect.gen(function* () {
        const index = yield* DocumentIndex
        yield* index.createIndex("corpus")
        yield* index.bulkIndex("corpus", [root, attachment])

        const untagged = yield* index.documentsWithoutNerTag("corpus", "EMAIL", "", 10)
        expect(untagged.map((document) => [document.id, document.rootDocument, document.parentDocument])).toStrictEqual([
          [root.id, root.id, null],
          [attachment.id, root.id, root.id]
        ])
        expect(yield* index.countWithoutNerTag("corpus", "EMAIL")).toBe(2)

        const entities = untagged.flatMap((document) => entitiesOf(annotate(emailPipeline, document.content), document, "EMAIL"))
        expect(yield* index.bulkIndexNamedEntities("corpus", entities)).toBe(2)
        expect(yield* index.bulkIndexNamedEntities("corpus", entities)).toBe(0)
        const stored = fake.indices.get("corpus")!.records.get(entities[1]!.id)!
        expect(stored.routing).toBe(root.id)
        expect(stored.source).toMatchObject({
          type: "NamedEntity",
          join: { name: "NamedEntity", parent: attachment.id },
          mention: "foo@bar.com",
          offsets: [8],
          isHidden: false
        })

        yield* index.markNerTagged("corpus", untagged, "EMAIL")
        expect(yield* index.documentsWithoutNerTag("corpus", "EMAIL", "", 10)).toStrictEqual([])
        expect(yield* index.countWithoutNerTag("corpus", "EMAIL")).toBe(0)
        expect(yield* index.countWithoutNerTag("corpus", "CORENLP")).toBe(2)
        const marked = Option.getOrThrow(yield* index.get("corpus", attachment.id, root.id))
        expect([marked.status, marked.nerTags]).toStrictEqual(["DONE", ["EMAIL"]])
        const update = fake.requests.filter((request) => request.path === "/_bulk").at(-1)!
        expect(update.body.split("\n")[0]).toBe(JSON.stringify({ update: { _index: "corpus", _id: root.id } }))

        const read = yield* index.getNamedEntity("corpus", entities[1]!.id, root.id)
        expect(read).toStrictEqual(Option.some(entities[1]))
        expect(yield* index.getNamedEntity("corpus", root.id)).toStrictEqual(Option.none())
        expect(yield* index.getNamedEntity("corpus", "0".repeat(96))).toStrictEqual(Option.none())

        expect(yield* index.hideNamedEntities("corpus", "foo@bar.com")).toBe(2)
        expect(Option.map(yield* index.getNamedEntity("corpus", entities[0]!.id, root.id), (entity) => entity.isHidden)).toStrictEqual(
          Option.some(true)
        )
        const hide = fake.requests.find((request) => request.path === "/corpus/_update_by_query")!
        expect(JSON.parse(hide.body)).toMatchObject({
          query: { bool: { filter: [{ term: { type: "NamedEntity" } }, { term: { mentionNorm: "foo@bar.com" } }] } }
        })
      }).pipe(Effect.provide(elasticsearchLayers(fake.url, { requestTimeout: 1_000, maxRetries: 0 })))
    })
  )
})
