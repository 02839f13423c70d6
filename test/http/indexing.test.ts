import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Option } from "effect"
import { documentId } from "../../src/extract/DocumentId.ts"
import { DocumentIndex } from "../../src/search/DocumentIndex.ts"
import { files, generateCorpus } from "../fixtures/corpus.ts"
import { eventually } from "../engine/helpers.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

interface View {
  readonly name: string
  readonly state: string
  readonly progress: unknown
  readonly result?: unknown
  readonly rate?: { readonly files: number; readonly bytes: number; readonly filesPerSecond: number; readonly megabytesPerSecond: number }
}

const documentCount = Object.keys(files).length - 2 // all but the hidden and the OS file

const post = (pathAndQuery: string, options?: Readonly<Record<string, unknown>>) =>
  request(pathAndQuery, options === undefined ? { method: "POST" } : { method: "POST", body: JSON.stringify({ options }) })

const postJson = (pathAndQuery: string, options?: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const response = yield* post(pathAndQuery, options)
    expect(response.status).toBe(200)
    return (yield* bodyJson(response)) as View & ReadonlyArray<View>
  })

/** The task once DONE (or another final state), read through the legacy API. */
const finished = (view: View) =>
  eventually(
    Effect.flatMap(request(`/api/task/${encodeURIComponent(view.name)}`), bodyJson).pipe(Effect.map((body) => body as View)),
    (current) => current.state !== "RUNNING",
    "120 seconds"
  )

/** The data folder with the corpus, written once per server. */
const corpus = Effect.gen(function* () {
  const server = yield* TestServer
  const dir = server.workDir
  if (
    !(yield* Effect.promise(() =>
      fs.stat(path.join(dir, files.pdf)).then(
        () => true,
        () => false
      )
    ))
  ) {
    yield* Effect.promise(() => generateCorpus(dir))
  }
  return { dir, index: Context.get(server.context, DocumentIndex) }
})

/** Whether a corpus file's top-level document is in the project's index. */
const isIndexed = (project: string, file: string) =>
  Effect.gen(function* () {
    const { index } = yield* corpus
    const bytes = yield* Effect.promise(() => fs.readFile(file))
    return Option.isSome(yield* index.get(project, documentId(project, bytes)).pipe(Effect.orDie))
  })

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Index and scan endpoints on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database }), { timeout: 180_000, excludeTestServices: true })((it) => {
      it.effect("index/file scans the data folder then indexes it: two tasks that end DONE with the file count", () =>
        Effect.gen(function* () {
          const { dir, index } = yield* corpus
          const [scan, indexing] = yield* postJson("/api/task/batchUpdate/index/file")
          expect(scan).toMatchObject({ name: expect.stringMatching(/^org\.icij\.datashare\.tasks\.ScanTask@/), state: "RUNNING" })
          expect(indexing).toMatchObject({ name: expect.stringMatching(/^org\.icij\.datashare\.tasks\.IndexTask@/), state: "RUNNING" })
          expect(yield* finished(scan!)).toMatchObject({ state: "DONE", result: documentCount })
          const indexed = yield* finished(indexing!)
          expect(indexed).toMatchObject({ state: "DONE", result: documentCount, progress: 1 })
          // The rate `--mode CLI` shows: files and bytes taken, per second from the task's start to its end.
          expect(indexed.rate).toMatchObject({
            files: documentCount,
            filesPerSecond: expect.any(Number),
            megabytesPerSecond: expect.any(Number)
          })
          expect(indexed.rate?.bytes).toBeGreaterThan(0)
          expect(yield* isIndexed("local-datashare", path.join(dir, files.docx))).toBe(true)
          expect(yield* isIndexed("local-datashare", path.join(dir, files.hidden))).toBe(false)
          expect(yield* index.count("local-datashare").pipe(Effect.orDie)).toBeGreaterThan(documentCount)
        })
      )

      it.effect("a scan of a sub-folder into another project, then an index of that project's queue", () =>
        Effect.gen(function* () {
          const { dir } = yield* corpus
          const options = { defaultProject: "texts" }
          const scan = yield* postJson(`/api/task/batchUpdate/scan${path.join(dir, "text")}`, options)
          expect(scan.name).toMatch(/^org\.icij\.datashare\.tasks\.ScanTask@/)
          expect(yield* finished(scan)).toMatchObject({ state: "DONE", result: 2 })
          const indexing = yield* postJson("/api/task/batchUpdate/index", options)
          expect(yield* finished(indexing)).toMatchObject({ state: "DONE", result: 2 })
          expect(yield* isIndexed("texts", path.join(dir, files.utf8))).toBe(true)
          expect(yield* isIndexed("texts", path.join(dir, files.pdf))).toBe(false)
        })
      )

      it.effect("index/<path> applies the scan options of the body, values as strings or not", () =>
        Effect.gen(function* () {
          const { dir } = yield* corpus
          const options = {
            defaultProject: "pdfs",
            includePattern: "*.pdf",
            excludePattern: "broken/**",
            includeHiddenFiles: "false",
            parallelism: 3
          }
          const [scan, indexing] = yield* postJson(`/api/task/batchUpdate/index${dir}`, options)
          expect(yield* finished(scan!)).toMatchObject({ state: "DONE", result: 1 })
          expect(yield* finished(indexing!)).toMatchObject({ state: "DONE", result: 1 })
          expect(yield* isIndexed("pdfs", path.join(dir, files.pdf))).toBe(true)

          // filter=true queues only files not indexed yet, here through a queue of its own name.
          const again = { ...options, includePattern: "*.{pdf,html}", filter: true, queueName: "pdfs:again" }
          const [filtered, indexedAgain] = yield* postJson(`/api/task/batchUpdate/index${dir}`, again)
          expect(yield* finished(filtered!)).toMatchObject({ state: "DONE", result: 1 })
          expect(yield* finished(indexedAgain!)).toMatchObject({ state: "DONE", result: 1 })
          expect(yield* isIndexed("pdfs", path.join(dir, files.html))).toBe(true)
        })
      )

      it.effect("documents the four endpoints in /api/openapi", () =>
        Effect.gen(function* () {
          const document = (yield* Effect.flatMap(request("/api/openapi"), bodyJson)) as {
            paths: Record<string, { post?: { summary: string } }>
          }
          const ours = Object.entries(document.paths).filter(([key]) => key.startsWith("/api/task/batchUpdate/"))
          expect(ours).toHaveLength(4)
          for (const [key, operations] of ours) expect(operations.post?.summary, key).toEqual(expect.any(String))
        })
      )

      it.effect("answers 403 outside the data folder, through .. or a link, and 400 for an unusable option", () =>
        Effect.gen(function* () {
          const { dir } = yield* corpus
          yield* Effect.promise(() => fs.symlink("/etc", path.join(dir, "escape")).catch(() => undefined))
          for (const target of [
            "/api/task/batchUpdate/index/etc",
            `/api/task/batchUpdate/scan${dir}/../`,
            `/api/task/batchUpdate/scan${dir}/escape`,
            `/api/task/batchUpdate/index${dir}-sibling`
          ]) {
            const response = yield* post(target, {})
            expect(response.status, target).toBe(403)
            expect(yield* bodyJson(response)).toEqual({ error: expect.stringContaining("not in the data folder") })
          }
          const invalid = yield* post(`/api/task/batchUpdate/scan${dir}`, { maxDepth: "deep" })
          expect(invalid.status).toBe(400)
          expect(yield* bodyJson(invalid)).toEqual({ error: expect.stringContaining("maxDepth") })
        })
      )
    })
  })
}

describe("Index, scan and findNames tasks in SERVER mode", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 60_000 })((it) => {
    it.effect("a user starts them on one of their projects only (403 otherwise); an administrator on any", () =>
      Effect.gen(function* () {
        yield* addUser("alice", "pw", { projects: ["granted"] })
        yield* addUser("root", "pw", { projects: [], admin: true })
        const start = (path: string, project: string, login: string) =>
          request(path, {
            method: "POST",
            body: JSON.stringify({ options: { defaultProject: project } }),
            headers: { authorization: basic(login, "pw"), "content-type": "application/json", accept: "application/json" }
          })
        // A user scans only in the project's source folder (issue 22): the project is stored with one.
        const source = path.join((yield* TestServer).workDir, "granted")
        yield* Effect.promise(() => fs.mkdir(source))
        const created = yield* request("/api/project", {
          method: "POST",
          body: JSON.stringify({ name: "granted", sourcePath: source }),
          headers: { authorization: basic("root", "pw"), "content-type": "application/json" }
        })
        expect(created.status).toBe(201)
        for (const path of [
          "/api/task/batchUpdate/index",
          `/api/task/batchUpdate/scan${source}`,
          `/api/task/batchUpdate/index${source}`,
          "/api/task/findNames/EMAIL"
        ]) {
          const refused = yield* start(path, "other", "alice")
          expect(refused.status, path).toBe(403)
          expect(yield* bodyJson(refused)).toEqual({ error: expect.stringContaining("other") })
          expect((yield* start(path, "granted", "alice")).status, path).toBe(200)
          expect((yield* start(path, "other", "root")).status, path).toBe(200)
        }
      })
    )
  })
})
