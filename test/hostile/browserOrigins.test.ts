import * as http from "node:http"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"

const foreign = "http://evil.example"
const json = { "content-type": "application/json" }

/** A request through node:http, which lets the test name any Host (fetch always sends the URL's). */
const raw = (path: string, options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resume) => {
      const outgoing = http.request(`${server.url}${path}`, { method: options.method ?? "GET", headers: options.headers }, (incoming) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("end", () =>
          resume(
            Effect.succeed({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString("utf8") })
          )
        )
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end(options.body)
    })
  )

const answer = (response: Response) => Effect.map(bodyJson(response), (body) => ({ status: response.status, body }))
const patchSettings = (data: Record<string, string>, headers: Record<string, string>) =>
  request("/api/settings", { method: "PATCH", headers: { ...json, ...headers }, body: JSON.stringify({ data }) })
const running = Effect.map(Effect.flatMap(request("/settings"), bodyJson), (body) => body as Record<string, string>)
const portOf = Effect.map(TestServer, (server) => new URL(server.url).port)

describe("Pages of other sites cannot drive a LOCAL Quarry (default settings)", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a write from a foreign Origin is refused with 403 in each API's error shape, and changes nothing", () =>
      Effect.gen(function* () {
        const refused = yield* answer(yield* patchSettings({ dataDir: "/" }, { origin: foreign }))
        expect(refused).toEqual({
          status: 403,
          body: { error: `PATCH from the origin ${foreign} is refused: the cors setting does not name it` }
        })
        expect((yield* running).dataDir).not.toBe("/")
        // A sandboxed frame or a data: page sends `Origin: null`.
        expect((yield* patchSettings({ dataDir: "/" }, { origin: "null" })).status).toBe(403)
        const search = yield* answer(
          yield* request("/api/index/search/local-datashare/_search", { method: "POST", headers: { ...json, origin: foreign }, body: "{}" })
        )
        expect(search).toMatchObject({
          status: 403,
          body: { error: { root_cause: [{ type: "security_exception" }], type: "security_exception" }, status: 403 }
        })
        const review = yield* answer(
          yield* request("/api/v1/task-record-reviews/", {
            method: "POST",
            headers: { "content-type": "application/vnd.api+json", origin: foreign },
            body: "{}"
          })
        )
        expect(review).toMatchObject({
          status: 403,
          body: { errors: [{ status: "403", code: "permission_denied", source: { pointer: "/data" } }] }
        })
        const rpc = yield* request("/rpc", { method: "POST", headers: { "content-type": "application/ndjson", origin: foreign }, body: "" })
        expect(rpc.status).toBe(403)
      })
    )

    it.effect("a write from the server's own origin, or without Origin (tools), goes through", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        expect((yield* patchSettings({ ocr: "false" }, { origin: server.url })).status).toBe(200)
        expect((yield* running).ocr).toBe("false")
        expect((yield* patchSettings({ ocr: "true" }, {})).status).toBe(200)
      })
    )

    it.effect("answers carry no CORS header, and a foreign preflight allows nothing", () =>
      Effect.gen(function* () {
        const read = yield* request("/api/status", { headers: { origin: foreign } })
        expect(read.status).toBe(200)
        expect(read.headers.has("access-control-allow-origin")).toBe(false)
        const preflight = yield* request("/api/plugins/install", {
          method: "OPTIONS",
          headers: { origin: foreign, "access-control-request-method": "PUT" }
        })
        expect(preflight.status).toBe(403)
        expect(preflight.headers.has("access-control-allow-methods")).toBe(false)
        expect(preflight.headers.has("access-control-allow-origin")).toBe(false)
        // Tools asking for the allowed methods still get them.
        expect((yield* request("/api/settings", { method: "OPTIONS" })).headers.get("access-control-allow-methods")).toBe("OPTIONS, PATCH")
      })
    )

    it.effect(
      "a request naming a foreign Host (DNS rebinding) is refused, reads and WebSockets included; local names and addresses pass",
      () =>
        Effect.gen(function* () {
          const port = yield* portOf
          const rebound = yield* raw("/api/status", { headers: { host: `evil.example:${port}` } })
          expect({ status: rebound.status, body: JSON.parse(rebound.body) }).toEqual({
            status: 403,
            body: { error: `requests for the host evil.example:${port} are refused: add it to allowedHosts` }
          })
          // Same-origin for the browser, since the page's own name now points here: Origin alone cannot tell.
          const write = yield* raw("/api/settings", {
            method: "PATCH",
            headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, ...json },
            body: JSON.stringify({ data: { dataDir: "/" } })
          })
          expect(write.status).toBe(403)
          const upgrade = {
            connection: "Upgrade",
            upgrade: "websocket",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            "sec-websocket-version": "13"
          }
          expect((yield* raw("/rpc/ws", { headers: { ...upgrade, host: `evil.example:${port}` } })).status).toBe(403)
          for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`, `192.168.1.20:${port}`]) {
            expect((yield* raw("/api/status", { headers: { host } })).status, host).toBe(200)
          }
        })
    )

    it.effect("JSON endpoints refuse text/plain and form bodies with 415; documented exceptions keep their types", () =>
      Effect.gen(function* () {
        const asText = yield* answer(
          yield* request("/api/settings", { method: "PATCH", headers: { "content-type": "text/plain" }, body: '{"data":{"ocr":"false"}}' })
        )
        expect(asText).toEqual({
          status: 415,
          body: { error: 'Unsupported media type "text/plain" in request: send JSON as application/json' }
        })
        const asForm = yield* request("/api/batch/search/result/some-id", { method: "POST", body: new URLSearchParams({ from: "0" }) })
        expect(asForm.status).toBe(415)
        const multipart = new FormData()
        multipart.set("data", "{}")
        expect((yield* request("/api/project", { method: "POST", body: multipart })).status).toBe(415)
        const search = yield* answer(
          yield* request("/api/index/search/local-datashare/_search", { method: "POST", body: new URLSearchParams({ query: "{}" }) })
        )
        expect(search).toMatchObject({ status: 415, body: { error: { type: "media_type_header_exception" }, status: 415 } })
        const review = yield* answer(
          yield* request("/api/v1/task-record-reviews/", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" })
        )
        expect(review).toMatchObject({ status: 415, body: { errors: [{ status: "415", code: "unsupported_media_type" }] } })
        // The reference's front end sends these as text/plain, searches too; the sign-in form and raw NER text keep theirs.
        const searched = yield* request("/api/index/search/local-datashare/_count", {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: "{}"
        })
        expect(searched.status).not.toBe(415)
        const starred = yield* request("/api/local-datashare/documents/batchUpdate/star", {
          method: "POST",
          body: JSON.stringify(["no-such-doc"])
        })
        expect(starred.status).toBe(200)
        const signIn = yield* request("/auth/signin", { method: "POST", body: new URLSearchParams({ login: "local" }), redirect: "manual" })
        expect(signIn.status).toBe(303)
        const names = yield* request("/api/ner/findNames/CORENLP", {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: "Ada Lovelace met Charles Babbage in London."
        })
        expect(names.status).not.toBe(415)
      })
    )
  })
})

describe("The cors and allowedHosts settings", () => {
  const friend = "http://localhost:9090"
  layer(
    testServerLayer({ database: "pglite", cli: { cors: `${friend},https://front.example`, allowedHosts: "quarry.newsroom.example" } }),
    {
      timeout: 60_000,
      excludeTestServices: true
    }
  )((it) => {
    it.effect("an origin named by cors may write and read, with its own name in Access-Control-Allow-Origin; others may not", () =>
      Effect.gen(function* () {
        const write = yield* patchSettings({ ocr: "false" }, { origin: friend })
        expect(write.status).toBe(200)
        expect(write.headers.get("access-control-allow-origin")).toBe(friend)
        expect(write.headers.get("vary")).toBe("Origin")
        const preflight = yield* request("/api/settings", {
          method: "OPTIONS",
          headers: { origin: "https://front.example", "access-control-request-method": "PATCH" }
        })
        expect(preflight.status).toBe(200)
        expect(preflight.headers.get("access-control-allow-methods")).toBe("OPTIONS, PATCH")
        expect(preflight.headers.get("access-control-allow-origin")).toBe("https://front.example")
        // A route that names no headers of its own: those of a JSON request with credentials are allowed.
        const searchPreflight = yield* request("/api/index/search/local-datashare/_search", {
          method: "OPTIONS",
          headers: { origin: friend, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
        })
        expect(searchPreflight.status).toBe(200)
        expect(searchPreflight.headers.get("access-control-allow-headers")).toBe("Content-Type, Authorization")
        expect(searchPreflight.headers.get("access-control-allow-origin")).toBe(friend)
        const other = yield* patchSettings({ ocr: "false" }, { origin: foreign })
        expect(other.status).toBe(403)
        expect(other.headers.has("access-control-allow-origin")).toBe(false)
        expect((yield* request("/api/status", { headers: { origin: foreign } })).headers.has("access-control-allow-origin")).toBe(false)
      })
    )

    it.effect("a name of allowedHosts may be named in Host; other names may not", () =>
      Effect.gen(function* () {
        const port = yield* portOf
        expect((yield* raw("/api/status", { headers: { host: `quarry.newsroom.example:${port}` } })).status).toBe(200)
        expect((yield* raw("/api/status", { headers: { host: "Quarry.Newsroom.Example" } })).status).toBe(200)
        expect((yield* raw("/api/status", { headers: { host: `other.newsroom.example:${port}` } })).status).toBe(403)
      })
    )
  })
})

describe("cors=*", () => {
  layer(testServerLayer({ database: "pglite", cli: { cors: "*" } }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("lets any page read answers, not write", () =>
      Effect.gen(function* () {
        expect((yield* request("/api/status", { headers: { origin: foreign } })).headers.get("access-control-allow-origin")).toBe("*")
        const write = yield* patchSettings({ dataDir: "/" }, { origin: foreign })
        expect(write.status).toBe(403)
      })
    )
  })
})
