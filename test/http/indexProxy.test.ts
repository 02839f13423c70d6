import * as http from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { documents } from "../search/dsl/corpus.ts"

/** Indexes the fixture documents in `project` through the server's own index. */
const indexCorpus = (project: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.provide(
      Effect.flatMap(DocumentIndex, (index) => index.bulkIndex(project, documents)),
      server.context
    )
  ).pipe(Effect.orDie)

/** A request with any method and body (fetch refuses a GET with a body, which clients still send). */
const raw = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resume) => {
      const outgoing = http.request(
        `${server.url}${path}`,
        { method, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) } },
        (response) => {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => (text += chunk))
          response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, text })))
        }
      )
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(body)
    })
  )

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(`/api/index/search/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

interface ScrollPage {
  readonly _scroll_id?: string
  readonly hits: { readonly hits: ReadonlyArray<{ readonly _id: string }> }
}

const hitIds = (body: unknown) => (body as { hits: { hits: ReadonlyArray<{ _id: string }> } }).hits.hits.map((hit) => hit._id).sort()

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const skipped = skip ? ` (skipped: ${postgresSkipReason})` : ""

  describe.skipIf(skip)(`search index proxy in LOCAL mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database }), { timeout: 60_000 })((it) => {
      it.effect("PUT /api/index/:index creates an index once (201 then 200), refuses bad names, and OPTIONS allows PUT", () =>
        Effect.gen(function* () {
          expect((yield* request("/api/index/created-here", { method: "PUT" })).status).toBe(201)
          expect((yield* request("/api/index/created-here", { method: "PUT" })).status).toBe(200)
          const bad = yield* request("/api/index/bad%20name", { method: "PUT" })
          expect(bad.status).toBe(400)
          expect(yield* bodyJson(bad)).toEqual({ error: "Bad format for indices : 'bad name'" })
          const options = yield* request("/api/index/created-here", { method: "OPTIONS" })
          expect(options.status).toBe(200)
          expect(options.headers.get("access-control-allow-methods")).toBe("OPTIONS, PUT")
          expect((yield* request("/api/index/search/created-here", { method: "HEAD" })).status).toBe(200)
        })
      )

      it.effect("POST forwards searches and counts (JSON sent as text/plain too) and propagates the backend's status", () =>
        Effect.gen(function* () {
          yield* indexCorpus("proxied")
          const found = yield* post(
            "proxied/_search",
            { query: { match: { content: "quick" } } },
            { "content-type": "text/plain;charset=UTF-8" }
          )
          expect(found.status).toBe(200)
          expect(hitIds(yield* bodyJson(found))).toEqual(["doc-fox", "doc-mail"])
          const count = yield* request("/api/index/search/proxied/_count", { method: "POST" })
          expect(yield* bodyJson(count)).toMatchObject({ count: 5 })
          const async = yield* post("proxied/_async_search?wait_for_completion_timeout=1s&keep_alive=5m", { track_total_hits: true })
          expect(yield* bodyJson(async)).toMatchObject({ is_running: false, response: { hits: { total: { value: 5, relation: "eq" } } } })
          expect(hitIds(yield* bodyJson(yield* post("proxied/doc/_search", { query: { ids: { values: ["doc-notes"] } } })))).toEqual([
            "doc-notes"
          ])
          const sized = yield* post("proxied/_search?size=1&_source=path", { query: { match_all: {} }, sort: ["path"] })
          expect(yield* bodyJson(sized)).toMatchObject({ hits: { hits: [{ _id: "doc-fox", _source: { path: "/data/docs/fox.txt" } }] } })
          const refused = yield* post("proxied/_search", { query: { script: { script: "1" } } })
          expect(refused.status).toBe(400)
          expect(yield* bodyJson(refused)).toMatchObject({ status: 400, error: { type: "illegal_argument_exception" } })
          const malformed = yield* raw("POST", "/api/index/search/proxied/_search", "{not json")
          expect(malformed.status).toBe(400)
          expect(JSON.parse(malformed.text)).toMatchObject({ error: { type: "parsing_exception" } })
          const unknown = yield* post("nope/_search", {})
          expect(unknown.status).toBe(404)
          expect(yield* bodyJson(unknown)).toMatchObject({ error: { type: "index_not_found_exception", index: "nope" } })
        })
      )

      it.effect("GET forwards any path; a GET body travels as the source parameter; HEAD answers the index's existence", () =>
        Effect.gen(function* () {
          yield* indexCorpus("readable")
          const document = yield* request("/api/index/search/readable/_doc/doc-attachment?routing=doc-mail&_source_excludes=content")
          expect(document.status).toBe(200)
          expect(yield* bodyJson(document)).toMatchObject({ _id: "doc-attachment", _routing: "doc-mail", found: true })
          expect((yield* request("/api/index/search/readable/_doc/nope")).status).toBe(404)
          const source = yield* request("/api/index/search/readable/_source/doc-fox?_source=tags")
          expect(yield* bodyJson(source)).toEqual({ tags: ["Urgent", "Review"] })
          const mapping = yield* request("/api/index/search/readable/_mapping/field/contentTypeCategory")
          expect(yield* bodyJson(mapping)).toMatchObject({
            readable: { mappings: { contentTypeCategory: { full_name: "contentTypeCategory" } } }
          })
          const withBody = yield* raw(
            "GET",
            "/api/index/search/readable/_search?size=0",
            JSON.stringify({ query: { ids: { values: ["doc-fox"] } } }),
            { "content-type": "application/json" }
          )
          expect(withBody.status).toBe(200)
          // The URL's size=0 is dropped with the other parameters once the body becomes `source`.
          expect(hitIds(JSON.parse(withBody.text))).toEqual(["doc-fox"])
          expect((yield* request("/api/index/search/readable", { method: "HEAD" })).status).toBe(200)
          expect((yield* request("/api/index/search/missing-index", { method: "HEAD" })).status).toBe(404)
        })
      )

      it.effect("refuses paths without an index list (400), POSTs other than searches and counts (403), DELETE and PUT (405)", () =>
        Effect.gen(function* () {
          yield* indexCorpus("guarded")
          const single = yield* post("guarded", {})
          expect(single.status).toBe(400)
          expect(yield* bodyJson(single)).toMatchObject({
            error: { type: "illegal_argument_exception", reason: "Invalid path: 'guarded'" },
            status: 400
          })
          const badList = yield* post("bad!name/_search", {})
          expect(badList.status).toBe(400)
          expect(yield* bodyJson(badList)).toMatchObject({ error: { reason: "Bad format for indices : 'bad!name'" }, status: 400 })
          expect((yield* post("guarded/_delete_by_query", {})).status).toBe(403)
          expect((yield* request("/api/index/search/guarded/_search", { method: "DELETE" })).status).toBe(405)
          expect((yield* request("/api/index/search/guarded/_search", { method: "PUT" })).status).toBe(405)
          const options = yield* request("/api/index/search/guarded/_search", { method: "OPTIONS" })
          expect(options.status).toBe(200)
          expect(options.headers.get("access-control-allow-methods")).toBe("OPTIONS, GET, POST, HEAD")
          expect((yield* request("/api/index/search/_async_search/abc")).status).toBe(404)
        })
      )
    })
  })

  describe.skipIf(skip)(`search index proxy in SERVER mode on ${database}${skipped}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }), { timeout: 60_000 })((it) => {
      it.effect("an index outside the user's projects is 403 whether or not it exists; a granted missing one is 404", () =>
        Effect.gen(function* () {
          yield* addUser("erin", "password", { projects: ["granted", "granted-missing"] })
          yield* indexCorpus("granted")
          yield* indexCorpus("secret")
          const auth = { authorization: basic("erin", "password") }
          expect((yield* post("granted/_search", {}, auth)).status).toBe(200)
          const refused = yield* post("secret/_search", {}, auth)
          expect(refused.status).toBe(403)
          expect(yield* bodyJson(refused)).toMatchObject({
            error: { type: "security_exception", reason: "You don't have access to the index 'secret'" },
            status: 403
          })
          expect((yield* post("granted,secret/_search", {}, auth)).status).toBe(403)
          expect((yield* post("never-created/_count", {}, auth)).status).toBe(403)
          expect((yield* post("granted-missing/_count", {}, auth)).status).toBe(404)
          expect((yield* request("/api/index/search/secret/_doc/doc-fox", { headers: auth })).status).toBe(403)
          expect((yield* request("/api/index/search/secret", { method: "HEAD", headers: auth })).status).toBe(403)
          expect((yield* post("granted/_search", {})).status).toBe(401)
        })
      )

      it.effect("a scroll continues only for a caller granted its index: 403 for another user, 404 for an id never given out", () =>
        Effect.gen(function* () {
          yield* addUser("scroller", "password", { projects: ["scrolled"] })
          yield* addUser("outsider", "password", { projects: ["elsewhere"] })
          yield* indexCorpus("scrolled")
          const scroller = { authorization: basic("scroller", "password") }
          const outsider = { authorization: basic("outsider", "password") }
          const sorted = { size: 1, sort: [{ path: "asc" }] }
          const everyPath = (yield* bodyJson(yield* post("scrolled/_search", { ...sorted, size: 10 }, scroller))) as ScrollPage
          const opened = (yield* bodyJson(yield* post("scrolled/_search?scroll=1m", sorted, scroller))) as ScrollPage
          expect(opened._scroll_id).toEqual(expect.any(String))
          const id = opened._scroll_id!
          const attempts = [
            yield* post("_search/scroll", { scroll: "1m", scroll_id: id }, outsider),
            yield* request(`/api/index/search/_search/scroll/${id}`, { headers: outsider }),
            yield* request(`/api/index/search/_search/scroll?scroll_id=${id}`, { headers: outsider })
          ]
          // A scroll of the outsider's own does not carry another id past the check: every id named is checked.
          yield* indexCorpus("elsewhere")
          const own = ((yield* bodyJson(yield* post("elsewhere/_search?scroll=1m", sorted, outsider))) as ScrollPage)._scroll_id!
          attempts.push(
            yield* request(`/api/index/search/_search/scroll/${id}?scroll_id=${own}`, { headers: outsider }),
            yield* post(`_search/scroll?scroll_id=${id}`, { scroll_id: own }, outsider)
          )
          for (const refused of attempts) {
            expect(refused.status).toBe(403)
            expect(yield* bodyJson(refused)).toMatchObject({
              error: { reason: "You don't have access to the index 'scrolled'" },
              status: 403
            })
          }
          // The refusals did not move the scroll: its owner gets the second page.
          const next = (yield* bodyJson(yield* post("_search/scroll", { scroll_id: id }, scroller))) as ScrollPage
          expect(next.hits.hits.map((hit) => hit._id)).toEqual([everyPath.hits.hits[1]!._id])
          const unknown = yield* post("_search/scroll", { scroll_id: "never-given-out" }, scroller)
          expect(unknown.status).toBe(404)
          expect(yield* bodyJson(unknown)).toMatchObject({
            error: { reason: "No search context found for id [never-given-out]" },
            status: 404
          })
          expect((yield* request("/api/index/search/_async_search/never-given-out", { headers: scroller })).status).toBe(404)
        })
      )
    })
  })
}
