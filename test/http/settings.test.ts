import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { parseProperties } from "../../src/config/Properties.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, bodyText, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

const packageVersion = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version

const patch = (data: unknown, headers: Record<string, string> = {}) =>
  request("/api/settings", { method: "PATCH", body: JSON.stringify({ data }), headers: { "Content-Type": "application/json", ...headers } })

const getSettings = Effect.flatMap(request("/settings"), bodyJson).pipe(Effect.map((body) => body as Record<string, unknown>))

// `layer` rather than `it.layer`: `it.layer` is rebound by each call, so later suites would rebuild earlier servers.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const suffix = skip ? ` (skipped: ${postgresSkipReason})` : ""
  // The --settings file must exist before the server starts, so it lives outside the server's own workDir.
  const settingsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-settings-http-"))
  const settingsFile = path.join(settingsDir, "quarry.properties")
  fs.writeFileSync(settingsFile, "previewHost=http://preview.example\n")
  afterAll(() => fs.rmSync(settingsDir, { recursive: true, force: true }))

  describe.skipIf(skip)(`settings endpoints in LOCAL mode on ${database}${suffix}`, () => {
    const localServer = testServerLayer({
      database,
      cli: { settings: settingsFile, elasticsearchAddress: "http://127.0.0.1:9", rootHost: "http://quarry.example" },
      env: { DS_DOCKER_OAUTH_CLIENT_SECRET: "s3cret", DS_DOCKER_REDIS_ADDRESS: "redis://redis:6379" }
    })
    layer(localServer)((it) => {
      it.effect("GET /settings lists the running settings as strings, without addresses, secrets, URLs and keys", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* request("/settings")
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          const body = (yield* bodyJson(response)) as Record<string, unknown>
          for (const hidden of ["dataSourceUrl", "elasticsearchAddress", "oauthClientSecret", "redisAddress"])
            expect(body).not.toHaveProperty(hidden)
          expect(JSON.stringify(body)).not.toContain("s3cret")
          expect(body).toMatchObject({
            mode: "LOCAL",
            pathSeparator: "/",
            tcpListenPort: "0",
            dataDir: server.workDir,
            settings: settingsFile,
            previewHost: "http://preview.example",
            rootHost: "http://quarry.example",
            defaultProject: "local-datashare"
          })
          expect(Object.values(body).every((value) => typeof value === "string")).toBe(true)
        })
      )

      it.effect("GET /version reports the package version and this checkout's commit", () =>
        Effect.gen(function* () {
          const response = yield* request("/version")
          expect(response.status).toBe(200)
          const body = (yield* bodyJson(response)) as Record<string, string>
          expect(body["git.build.version"]).toBe(packageVersion)
          expect(body["git.commit.id"]).toMatch(/^[0-9a-f]{40}$/)
          expect(body["git.commit.id"]!.startsWith(body["git.commit.id.abbrev"]!)).toBe(true)
          expect(["true", "false"]).toContain(body["git.dirty"])
          expect(Object.keys(body).every((key) => key.startsWith("git."))).toBe(true)
        })
      )

      it.effect("OPTIONS /api/settings allows PATCH and the content-type header", () =>
        Effect.gen(function* () {
          const response = yield* request("/api/settings", { method: "OPTIONS" })
          expect(response.status).toBe(200)
          expect(response.headers.get("access-control-allow-methods")).toBe("OPTIONS, PATCH")
          expect(response.headers.get("access-control-allow-headers")).toBe("content-type")
          expect(response.headers.get("content-length")).toBe("0")
        })
      )

      it.effect("PATCH /api/settings saves the change to the settings file and GET /settings shows it", () =>
        Effect.gen(function* () {
          const response = yield* patch({ scrollSize: "500", ocr: false, batchDownloadMaxNbFiles: 42 })
          expect(response.status).toBe(200)
          expect(response.headers.get("content-length")).toBe("0")
          expect(yield* bodyText(response)).toBe("")
          expect(parseProperties(fs.readFileSync(settingsFile, "utf8"))).toEqual({
            previewHost: "http://preview.example",
            scrollSize: "500",
            ocr: "false",
            batchDownloadMaxNbFiles: "42"
          })
          expect(yield* getSettings).toMatchObject({ scrollSize: "500", ocr: "false", batchDownloadMaxNbFiles: "42" })
        })
      )

      it.effect("PATCH /api/settings answers 400 for a bad value, naming the option, and changes nothing", () =>
        Effect.gen(function* () {
          const before = fs.readFileSync(settingsFile, "utf8")
          const response = yield* patch({ tcpListenPort: "70000" })
          expect(response.status).toBe(400)
          expect(((yield* bodyJson(response)) as { error: string }).error).toContain("--tcpListenPort")
          expect(fs.readFileSync(settingsFile, "utf8")).toBe(before)
          expect((yield* getSettings).tcpListenPort).toBe("0")
        })
      )

      it.effect("PATCH /api/settings answers 400 for a body without a data object", () =>
        Effect.gen(function* () {
          expect((yield* patch("not an object")).status).toBe(400)
          const malformed = yield* request("/api/settings", {
            method: "PATCH",
            headers: { "Content-Type": "application/json" },
            body: "{data:"
          })
          expect(malformed.status).toBe(400)
          expect(yield* bodyJson(malformed)).toHaveProperty("error")
        })
      )

      it.effect("PATCH /api/settings answers 404 when the settings file cannot be written, and changes nothing", () =>
        Effect.gen(function* () {
          // A directory in the file's place: no write can replace it, even as root.
          fs.rmSync(settingsFile)
          fs.mkdirSync(settingsFile)
          const response = yield* patch({ scrollSize: "700" })
          expect(response.status).toBe(404)
          expect(((yield* bodyJson(response)) as { error: string }).error).toContain(settingsFile)
          expect((yield* getSettings).scrollSize).toBe("500")
        })
      )
    })
  })

  describe.skipIf(skip)(`settings endpoints in SERVER mode on ${database}${suffix}`, () => {
    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("GET /settings and GET /version answer without credentials", () =>
        Effect.gen(function* () {
          const settings = yield* request("/settings")
          expect(settings.status).toBe(200)
          expect(yield* bodyJson(settings)).toMatchObject({ mode: "SERVER" })
          expect((yield* request("/version")).status).toBe(200)
        })
      )

      it.effect("PATCH /api/settings is refused with 403 to a signed-in user, and nothing is written", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* addUser("alice", "secret-pw")
          const response = yield* patch({ scrollSize: "500" }, { Authorization: basic("alice", "secret-pw") })
          expect(response.status).toBe(403)
          expect(yield* bodyJson(response)).toHaveProperty("error")
          expect(fs.existsSync(server.settings.writableFile)).toBe(false)
          expect((yield* getSettings).scrollSize).toBe("1000")
        })
      )

      it.effect("PATCH /api/settings without credentials answers 401", () =>
        Effect.gen(function* () {
          expect((yield* patch({ scrollSize: "500" })).status).toBe(401)
        })
      )
    })
  })
}
