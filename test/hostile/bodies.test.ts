import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { jsonTooDeep, maxJsonDepth } from "../../src/transport/JsonDepth.ts"
import { WebSocket } from "ws"
import { eventually } from "../engine/helpers.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"
import { deepJson } from "./files.ts"

const admin = { authorization: basic("root", "root password") }
const jsonApi = { ...admin, "content-type": "application/vnd.api+json" }
const post = (path: string, body: string, headers: Record<string, string> = admin) =>
  request(path, { method: "POST", headers, body, redirect: "manual" })
const answer = (response: Response) => Effect.map(bodyJson(response), (body) => ({ status: response.status, body }))

describe("jsonTooDeep", () => {
  it("counts open arrays and objects, not brackets inside strings", () => {
    expect(jsonTooDeep(deepJson(maxJsonDepth))).toBe(false)
    expect(jsonTooDeep(deepJson(maxJsonDepth + 1))).toBe(true)
    expect(jsonTooDeep(`{"a": "${"[".repeat(10_000)}", "b": "\\\"[[[["}`)).toBe(false)
    expect(jsonTooDeep('{"a": [1, {"b": [2, 3]}], "c": {}}', 4)).toBe(false)
    expect(jsonTooDeep('{"a": [1, {"b": [2, 3]}], "c": {}}', 3)).toBe(true)
    const started = performance.now()
    expect(jsonTooDeep(deepJson(1_000_000))).toBe(true)
    expect(performance.now() - started).toBeLessThan(500)
  })
})

describe("Request bodies: size limits per route and JSON depth", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("the sign-in form and ordinary JSON bodies answer 413 past 64 KiB, in the legacy shape", () =>
      Effect.gen(function* () {
        yield* addUser("root", "root password", { admin: true, projects: ["local-datashare"] })
        const big = "x".repeat(100 * 1024)
        expect(
          yield* answer(yield* post("/auth/signin", `login=root&password=${big}`, { "content-type": "application/x-www-form-urlencoded" }))
        ).toEqual({
          status: 413,
          body: { error: "request bodies are limited to 65536 bytes here" }
        })
        expect((yield* post("/api/task/batchUpdate/index/file", JSON.stringify({ options: { padding: big } }))).status).toBe(413)
        // The sign-in still works with an ordinary form.
        const signedIn = yield* post("/auth/signin", "login=root&password=root%20password", {
          "content-type": "application/x-www-form-urlencoded"
        })
        expect(signedIn.status).toBe(303)
      })
    )

    it.effect("lists of document ids get 2 MiB, uploads more; the review API answers 413 as a JSON:API document", () =>
      Effect.gen(function* () {
        const ids = Array.from({ length: 10_000 }, (_, i) => i.toString(16).padStart(96, "0"))
        const tag = yield* post("/api/local-datashare/documents/batchUpdate/tag", JSON.stringify({ docIds: ids, tags: ["t"] }))
        expect(tag.status).not.toBe(413)
        const tooMany = yield* post(
          "/api/local-datashare/documents/batchUpdate/tag",
          JSON.stringify({ docIds: [...ids, ...ids, ...ids], tags: ["t"] })
        )
        expect(tooMany.status).toBe(413)
        const review = yield* answer(yield* post("/api/v1/operations/", JSON.stringify({ padding: "x".repeat(3 * 1024 ** 2) }), jsonApi))
        expect(review).toMatchObject({ status: 413, body: { errors: [{ status: "413", code: "payload_too_large" }] } })
      })
    )

    it.effect(`JSON nested deeper than ${maxJsonDepth} levels answers 400 on the legacy API, the review API and the search proxy`, () =>
      Effect.gen(function* () {
        const deep = deepJson(100_000)
        expect(yield* answer(yield* post("/api/task/batchUpdate/index/file", deepJson(maxJsonDepth + 1)))).toEqual({
          status: 400,
          body: { error: `JSON nested deeper than ${maxJsonDepth} levels is refused` }
        })
        expect(yield* answer(yield* post("/api/v1/operations/", deep.slice(0, 60_000) + deep.slice(-60_000), jsonApi))).toMatchObject({
          status: 400,
          body: { errors: [{ status: "400", detail: `JSON nested deeper than ${maxJsonDepth} levels is refused` }] }
        })
        const search = yield* answer(
          yield* post("/api/index/search/local-datashare/_search", deep, { ...admin, "content-type": "application/json" })
        )
        expect(search).toMatchObject({ status: 400, body: { error: { type: "parsing_exception" }, status: 400 } })
        expect((yield* request("/api/status", { headers: admin })).status).toBe(200)
      })
    )

    it.effect("RPC over HTTP: deep NDJSON answers 400 before the RPC server parses it, and a huge body 413", () =>
      Effect.gen(function* () {
        const deep = yield* answer(
          yield* post("/rpc", `{"_tag":"Request","id":"1","tag":"getTask","payload":${deepJson(100_000)},"headers":[]}\n`, {
            ...admin,
            "content-type": "application/ndjson"
          })
        )
        expect(deep).toEqual({ status: 400, body: { error: `JSON nested deeper than ${maxJsonDepth} levels is refused` } })
        const huge = yield* post("/rpc", "x".repeat(17 * 1024 ** 2), { ...admin, "content-type": "application/ndjson" })
        expect(huge.status).toBe(413)
      })
    )
  })
})

describe("RPC over the WebSocket", () => {
  layer(testServerLayer({ database: "pglite" }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a message nested too deep fails the call; the connection and the server keep working", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const socket = new WebSocket(`${server.url.replace("http", "ws")}/rpc/ws`)
        const messages: Array<string> = []
        socket.on("message", (data: Buffer) => messages.push(data.toString("utf8")))
        yield* Effect.promise(() => new Promise((resolve, reject) => (socket.once("open", resolve), socket.once("error", reject))))
        socket.send(`{"_tag":"Request","id":"1","tag":"getTask","payload":${deepJson(100_000)},"headers":[]}`)
        yield* eventually(
          Effect.sync(() => messages),
          (received) => received.length > 0
        )
        expect(messages[0]).toContain(`JSON nested deeper than ${maxJsonDepth} levels is refused`)
        expect(socket.readyState).toBe(WebSocket.OPEN)
        socket.close()
        expect((yield* request("/api/status")).status).toBe(200)
      })
    )
  })
})
