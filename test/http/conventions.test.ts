import { createHash, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, bodyText, request, TestServer, testServerLayer } from "../helpers/server.ts"

const md5 = (bytes: Uint8Array) => createHash("md5").update(bytes).digest("hex")

/**
 * One request written on a raw socket, and everything the server sent until it closed: fetch hides whether a
 * HEAD or 304 answer carried body bytes, a socket does not.
 */
const rawExchange = (method: string, target: string, headers: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ readonly head: string; readonly rest: string }>((resume) => {
      const url = new URL(server.url)
      const socket = net.connect(Number(url.port), url.hostname)
      const chunks: Array<Buffer> = []
      const lines = [
        `${method} ${target} HTTP/1.1`,
        `Host: ${url.host}`,
        "Connection: close",
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)
      ]
      socket.on("connect", () => socket.write(`${lines.join("\r\n")}\r\n\r\n`))
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      socket.on("error", (error) => resume(Effect.die(error)))
      socket.on("close", () => {
        const text = Buffer.concat(chunks).toString("latin1")
        const end = text.indexOf("\r\n\r\n")
        resume(Effect.succeed({ head: text.slice(0, end), rest: text.slice(end + 4) }))
      })
    })
  )

const stableJson = "/api/settings/text/languages"
const json = { "content-type": "application/json" }

// `layer` rather than `it.layer`: @effect/vitest's `it.layer` is rebound by each call, so a later suite would
// also rebuild (and nest under) the servers of the suites before it.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`legacy HTTP conventions on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }))((it) => {
      it.effect("sends no Access-Control-Allow-Origin by default (cors=no-cors) on successes, 404s, errors, preflights and 304s", () =>
        Effect.gen(function* () {
          const etag = (yield* request(stableJson)).headers.get("etag") ?? ""
          const responses = [
            yield* request("/api/status"),
            yield* request("/"),
            yield* request("/no/such/route"),
            yield* request("/api/tree/etc"),
            yield* request("/api/status", { method: "DELETE" }),
            yield* request("/api/tree/tmp", { method: "OPTIONS" }),
            yield* request(stableJson, { headers: { "If-None-Match": etag } })
          ]
          expect(responses.map((response) => response.status)).toEqual([200, 200, 404, 403, 405, 200, 304])
          for (const response of responses) expect(response.headers.has("access-control-allow-origin"), response.url).toBe(false)
        })
      )

      it.effect("tags every body with the lowercase hex MD5 of its bytes", () =>
        Effect.gen(function* () {
          for (const target of ["/api/status", "/", stableJson, "/no/such/route"]) {
            const response = yield* request(target)
            const bytes = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
            expect(response.headers.get("etag"), target).toBe(md5(bytes))
            expect(response.headers.get("content-length"), target).toBe(String(bytes.length))
          }
        })
      )

      it.effect("answers 304 with no body to a matching If-None-Match, quoted or not, and 200 otherwise", () =>
        Effect.gen(function* () {
          const etag = (yield* request(stableJson)).headers.get("etag") ?? ""
          expect(etag).toMatch(/^[0-9a-f]{32}$/)
          for (const candidate of [etag, `"${etag}"`]) {
            const answer = yield* rawExchange("GET", stableJson, { "If-None-Match": candidate })
            expect(answer.head).toMatch(/^HTTP\/1\.1 304 /)
            expect(answer.head.toLowerCase()).toContain(`etag: ${etag}`)
            expect(answer.rest).toBe("")
          }
          const stale = yield* request(stableJson, { headers: { "If-None-Match": '"0123"' } })
          expect(stale.status).toBe(200)
          expect(yield* bodyJson(stale)).toContainEqual({ iso6392: "fra", name: "FRENCH" })
        })
      )

      it.effect("answers an empty success with Content-Length: 0 and the preflight's allowed methods", () =>
        Effect.gen(function* () {
          const preflight = yield* request("/api/tree/anything", { method: "OPTIONS" })
          expect(preflight.status).toBe(200)
          expect(preflight.headers.get("content-length")).toBe("0")
          expect(preflight.headers.get("access-control-allow-methods")).toBe("OPTIONS, GET")
          expect(preflight.headers.get("etag")).toBeNull()
          expect(yield* bodyText(preflight)).toBe("")
        })
      )

      it.effect("answers errors as {error} in application/json;charset=UTF-8: unknown route 404, wrong method 405", () =>
        Effect.gen(function* () {
          const unknown = yield* request("/api/no/such/route")
          expect(unknown.status).toBe(404)
          expect(unknown.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          expect(yield* bodyJson(unknown)).toEqual({ error: "Not found" })
          for (const [method, target] of [
            ["DELETE", "/api/status"],
            ["POST", "/api/settings/text/languages"],
            ["PUT", "/api/tree/tmp"]
          ] as const) {
            const wrong = yield* request(target, { method })
            expect(wrong.status, `${method} ${target}`).toBe(405)
            expect(wrong.headers.get("content-type")).toBe("application/json;charset=UTF-8")
            expect(yield* bodyJson(wrong)).toEqual({ error: `${method} is not allowed on ${target}` })
          }
          const forbidden = yield* request("/api/tree/etc")
          expect(forbidden.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          expect(yield* bodyJson(forbidden)).toEqual({ error: "/etc is not in the data folder" })
        })
      )

      it.effect("refuses NUL characters in bodies and URLs with a 400, as the database cannot store them", () =>
        Effect.gen(function* () {
          const refused = [
            yield* request("/api/local-datashare/documents/tags/some-id", { method: "PUT", headers: json, body: '["a\\u0000b"]' }),
            yield* request("/api/local-datashare/notes/a/b", {
              method: "PUT",
              headers: json,
              body: '{"note":"x\\u0000y","variant":"info"}'
            }),
            yield* request("/api/users/me/history", {
              method: "PUT",
              body: '{"type":"SEARCH","projectIds":["local-datashare"],"name":"q","uri":"/?q=a","x\\u0000":1}'
            }),
            yield* request("/api/local-datashare/notes/a%00b")
          ]
          for (const response of refused) {
            expect(response.status).toBe(400)
            expect(yield* bodyJson(response)).toEqual({ error: "NUL characters are not supported" })
          }
          const review = yield* request("/api/v1/projects/", {
            method: "POST",
            headers: { "Content-Type": "application/vnd.api+json" },
            body: '{"data":{"type":"Project","attributes":{"name":"a\\u0000b"}}}'
          })
          expect(review.status).toBe(400)
          expect(yield* bodyJson(review)).toEqual({
            errors: [{ detail: "NUL characters are not supported", status: "400", source: { pointer: "/data" }, code: "parse_error" }]
          })
        })
      )

      it.effect("answers HEAD like GET without writing the body", () =>
        Effect.gen(function* () {
          const get = yield* request("/api/status")
          const length = String((yield* bodyText(get)).length)
          const head = yield* rawExchange("HEAD", "/api/status")
          expect(head.head).toMatch(/^HTTP\/1\.1 200 /)
          expect(head.head.toLowerCase()).toContain(`content-length: ${length}`)
          expect(head.head.toLowerCase()).toContain("content-type: application/json;charset=utf-8")
          expect(head.rest).toBe("")
        })
      )

      it.effect("sets the LOCAL session cookie when the request has none, and only then", () =>
        Effect.gen(function* () {
          const first = yield* request("/api/status")
          const setCookie = first.headers.get("set-cookie") ?? ""
          const [pair, ...attributes] = setCookie.split("; ")
          expect(pair?.startsWith("_ds_session_id=")).toBe(true)
          const value: unknown = JSON.parse(pair!.slice("_ds_session_id=".length))
          expect(value).toEqual({
            login: "local",
            roles: ["local"],
            sessionId: expect.stringMatching(/^[0-9a-f]{1,32}$/),
            redirectAfterLogin: "/"
          })
          expect(attributes).toEqual(expect.arrayContaining(["Version=1", "Path=/", "Max-Age=2147483647"]))
          const again = yield* request("/api/status", { headers: { Cookie: pair! } })
          expect(again.status).toBe(200)
          expect(again.headers.get("set-cookie")).toBeNull()
          const broken = yield* request("/api/status", { headers: { Cookie: "_ds_session_id=not-json" } })
          expect(broken.headers.get("set-cookie")).toMatch(/^_ds_session_id=\{/)
        })
      )
    })

    // PATCH /api/settings is a route with a JSON body and an empty success; it needs a settings file to write.
    const settingsFile = path.join(os.tmpdir(), `quarry-conventions-${randomUUID()}.properties`)
    beforeAll(() => {
      console.log("WRITE", settingsFile)
      fs.writeFileSync(settingsFile, "# written by the conventions test\n")
    })
    afterAll(() => {
      console.log("RM", settingsFile)
      fs.rmSync(settingsFile, { force: true })
    })

    layer(testServerLayer({ database, cli: { settings: settingsFile } }))((it) => {
      it.effect(
        "refuses a JSON body sent as text/plain with 415 (any page can send one), and answers an empty success with Content-Length: 0",
        () =>
          Effect.gen(function* () {
            const body = JSON.stringify({ data: { batchDownloadMaxNbFiles: "42" } })
            const asText = yield* request("/api/settings", {
              method: "PATCH",
              headers: { "Content-Type": "text/plain;charset=UTF-8" },
              body
            })
            expect(asText.status).toBe(415)
            const patch = yield* request("/api/settings", { method: "PATCH", headers: json, body })
            expect(patch.status).toBe(200)
            expect(patch.headers.get("content-length")).toBe("0")
            expect(yield* bodyText(patch)).toBe("")
            expect(fs.readFileSync(settingsFile, "utf8")).toMatch(/^batchDownloadMaxNbFiles=42$/m)
            expect(yield* bodyJson(yield* request("/settings"))).toMatchObject({ batchDownloadMaxNbFiles: "42" })
            const malformed = yield* request("/api/settings", { method: "PATCH", headers: json, body: "{data:" })
            expect(malformed.status).toBe(400)
            expect(malformed.headers.get("content-type")).toBe("application/json;charset=UTF-8")
            expect(yield* bodyJson(malformed)).toEqual({ error: "the request body is not valid JSON" })
          })
      )
    })

    layer(testServerLayer({ database, cli: { cors: "*" } }))((it) => {
      it.effect("sends Access-Control-Allow-Origin: * on every answer when cors is *", () =>
        Effect.gen(function* () {
          for (const target of ["/api/status", "/no/such/route"]) {
            const response = yield* request(target)
            expect(response.headers.get("access-control-allow-origin"), target).toBe("*")
            expect(response.headers.get("etag"), target).not.toBeNull()
          }
        })
      )
    })
  })
}
