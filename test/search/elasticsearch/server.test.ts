import { copyFile, mkdir, readFile } from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { documentId, duplicateId } from "../../../src/extract/DocumentId.ts"
import { SearchBackend } from "../../../src/search/SearchBackend.ts"
import { generateCorpus } from "../../fixtures/corpus.ts"
import { eventually } from "../../engine/helpers.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../../helpers/server.ts"
import { type FakeElasticsearch, fakeElasticsearch, type RecordedRequest } from "./fakeElasticsearch.ts"

class FakeCluster extends Context.Tag("test/FakeCluster")<FakeCluster, FakeElasticsearch>() {}

const credentials = "elastic:ch@nge me"

/** A real Quarry whose elasticsearchAddress is the fake cluster, which requires Basic credentials given in the URL. */
const serverOnFakeCluster = Layer.unwrapScoped(
  Effect.map(fakeElasticsearch, (fake) => {
    fake.credentials = credentials
    const address = fake.url.replace("http://", `http://elastic:${encodeURIComponent("ch@nge me")}@`)
    return Layer.merge(testServerLayer({ database: "pglite", cli: { elasticsearchAddress: address } }), Layer.succeed(FakeCluster, fake))
  })
)

interface View {
  readonly name: string
  readonly state: string
  readonly result?: unknown
}

const finished = (view: View) =>
  eventually(
    Effect.flatMap(request(`/api/task/${encodeURIComponent(view.name)}`), bodyJson).pipe(Effect.map((body) => body as View)),
    (current) => current.state !== "RUNNING",
    "60 seconds"
  )

/** The `create` action lines of every bulk request the cluster received. */
const createActions = (requests: ReadonlyArray<RecordedRequest>) =>
  requests
    .filter((recorded) => recorded.path === "/_bulk")
    .flatMap((recorded) =>
      recorded.body
        .trimEnd()
        .split("\n")
        .filter((_, i) => i % 2 === 0)
    )
    .map((line) => (JSON.parse(line) as { create: { _index: string; _id: string; routing?: string } }).create)

describe("Indexing a folder into Elasticsearch (recorded-protocol fake on loopback)", () => {
  layer(serverOnFakeCluster, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("GET /api/status pings the cluster with the credentials of the address", () =>
      Effect.gen(function* () {
        const fake = yield* FakeCluster
        expect(yield* bodyJson(yield* request("/api/status"))).toMatchObject({ database: true, index: true })
        const ping = fake.requests.find((recorded) => recorded.method === "GET" && recorded.path === "/")
        expect(ping?.headers.authorization).toBe(`Basic ${Buffer.from(credentials).toString("base64")}`)
      })
    )

    it.effect("the index task creates the index with its mapping and bulk-writes documents, routed, with a Duplicate", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const fake = yield* FakeCluster
        const corpus = yield* Effect.promise(() => generateCorpus(path.join(server.workDir, "corpus")))
        const folder = path.join(server.workDir, "folder")
        yield* Effect.promise(async () => {
          await mkdir(folder, { recursive: true })
          await copyFile(corpus.utf8, path.join(folder, "report.txt"))
          await copyFile(corpus.utf8, path.join(folder, "report-copy.txt"))
          await copyFile(corpus.eml, path.join(folder, "message.eml"))
        })
        const text = yield* Effect.promise(() => readFile(corpus.utf8))
        const email = yield* Effect.promise(() => readFile(corpus.eml))
        const project = "local-datashare"

        const response = yield* request(`/api/task/batchUpdate/index${folder}`, { method: "POST", body: JSON.stringify({ options: {} }) })
        expect(response.status).toBe(200)
        const [scan, indexing] = (yield* bodyJson(response)) as ReadonlyArray<View>
        expect(yield* finished(scan!)).toMatchObject({ state: "DONE", result: 3 })
        expect(yield* finished(indexing!)).toMatchObject({ state: "DONE", result: 3 })

        const create = fake.requests.find((recorded) => recorded.method === "PUT" && recorded.path === `/${project}`)
        expect(JSON.parse(create!.body)).toMatchObject({
          settings: { "index.number_of_shards": 1 },
          mappings: { properties: { join: { type: "join", relations: { Document: ["NamedEntity", "Duplicate"] } } } }
        })

        const actions = createActions(fake.requests)
        const textId = documentId(project, text)
        const emailId = documentId(project, email)
        expect(actions).toContainEqual({ _index: project, _id: textId })
        expect(actions).toContainEqual({ _index: project, _id: emailId })
        const attachments = actions.filter((action) => action.routing === emailId)
        expect(attachments.length).toBeGreaterThanOrEqual(1)

        const records = fake.indices.get(project)!.records
        const duplicate = records.get(duplicateId(text))
        expect(duplicate?.routing).toBe(textId)
        expect(duplicate?.source).toMatchObject({ type: "Duplicate", documentId: textId, join: { name: "Duplicate", parent: textId } })
        const paths = [path.join(folder, "report.txt"), path.join(folder, "report-copy.txt")]
        expect(paths).toContain(records.get(textId)?.source["path"])
        expect(paths.filter((file) => file !== records.get(textId)?.source["path"])).toEqual([duplicate?.source["path"]])

        // The documents endpoints read through the same index: an attachment by id and routing.
        const attachmentId = attachments[0]!._id
        const content = yield* request(`/api/${project}/documents/content/${attachmentId}?routing=${emailId}`)
        expect(content.status).toBe(200)
        expect(yield* bodyJson(content)).toMatchObject({ content: String(records.get(attachmentId)?.source["content"]) })
        expect(fake.requests.at(-1)).toMatchObject({ method: "GET", path: `/${project}/_doc/${attachmentId}` })

        // The search proxy's backend is the cluster too (read unchecked: only this configuration provides it so far).
        const backend = Context.unsafeGet(server.context, SearchBackend)
        const search = yield* backend.handle({
          method: "POST",
          path: `${project}/_search`,
          query: new URLSearchParams(),
          body: { query: { match_all: {} } }
        })
        expect(search.status).toBe(200)
        // Two files, the attachment(s); the copy is a Duplicate record, not a Document.
        expect(search.body).toMatchObject({ hits: { total: { value: 2 + attachments.length } } })
        expect(fake.requests.at(-1)).toMatchObject({ method: "POST", path: `/${project}/_search` })
      })
    )
  })
})
