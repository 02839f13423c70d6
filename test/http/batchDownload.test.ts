import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BatchDownloads } from "../../src/domain/batch-download/BatchDownloads.ts"
import { eventually } from "../engine/helpers.ts"
import { attachmentBytes, emailWithAttachment } from "../fixtures/corpus.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { indexFiles, writeText } from "../helpers/indexing.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { readZip } from "../helpers/zips.ts"

const project = "local-datashare"

interface DownloadProperties {
  readonly uuid: string
  readonly projects: ReadonlyArray<{ readonly name: string }>
  readonly filename: string
  readonly query: string
  readonly uri: string
  readonly user: { readonly id: string }
  readonly encrypted: boolean
  readonly password?: string
  readonly zipSize: number
  readonly exists: boolean
}

interface TaskView {
  readonly name: string
  readonly state: string
  readonly progress: number | string
  readonly result?: string
  readonly error?: string
  readonly properties: { readonly batchDownload: DownloadProperties }
}

const postJson = (url: string, body: unknown, method = "POST") =>
  request(url, { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } })

const startDownload = (options: Record<string, unknown>) => postJson("/api/task/batchDownload", { options })

const readTask = (name: string) => Effect.flatMap(request(`/api/task/${name}`), bodyJson).pipe(Effect.map((body) => body as TaskView))

/** Starts a download and answers its task once finished. */
const download = (query: string | Record<string, unknown>, projectIds = [project]) =>
  Effect.gen(function* () {
    const response = yield* startDownload({ projectIds, query, uri: "/?q=x&indices=local-datashare" })
    expect(response.status).toBe(200)
    const started = (yield* bodyJson(response)) as TaskView
    return yield* eventually(readTask(started.name), (task) => task.state !== "RUNNING", "60 seconds")
  })

/** The bytes of the zip served as the task's result. */
const resultBytes = (task: TaskView) =>
  Effect.gen(function* () {
    const response = yield* request(`/api/task/${task.name}/result`)
    expect(response.status).toBe(200)
    return new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
  })

/** The zip served as the task's result, read back. */
const resultZip = (task: TaskView, password?: string) =>
  Effect.flatMap(resultBytes(task), (bytes) => readZip(bytes, password).pipe(Effect.orDie))

const patchSettings = (data: Record<string, string>) =>
  Effect.flatMap(postJson("/api/settings", { data }, "PATCH"), (response) => Effect.sync(() => expect(response.status).toBe(200)))

/** Two documents about tankers, one about a bank, and an e-mail whose attachment speaks of both parties. */
const corpus = Effect.gen(function* () {
  const files = [
    yield* writeText("ships.txt", "The tanker Morning Star left the harbour with its cargo."),
    yield* writeText("more-ships.txt", "A second tanker, registered offshore, carried the same cargo and more."),
    yield* writeText("banks.txt", 'The bank "Trust One" wired the payment to an offshore account.'),
    yield* writeText("contract.eml", emailWithAttachment)
  ]
  yield* indexFiles(project, files)
  return files
})

const entryName = (file: string) => file.replace(/^\/+/, "")

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  const downloadDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-downloads-"))
  afterAll(() => fs.rmSync(downloadDir, { recursive: true, force: true }))

  describe.skipIf(skip)(`batch downloads on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testServerLayer({ database, cli: { batchDownloadDir: downloadDir } }), { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("zips every matching file under its path; the task shows the archive and serves it", () =>
        Effect.gen(function* () {
          const [ships, moreShips] = yield* corpus
          const response = yield* startDownload({ projectIds: [project], query: "tanker", uri: "/?q=tanker" })
          expect(response.status).toBe(200)
          const started = (yield* bodyJson(response)) as TaskView
          expect(started.name).toMatch(/^org\.icij\.datashare\.tasks\.BatchDownloadRunner@[0-9a-f-]{36}$/)
          expect(started).toMatchObject({ state: "RUNNING", progress: 0, user: { id: "local" } })
          const properties = started.properties.batchDownload
          expect(started.name.endsWith(`@${properties.uuid}`)).toBe(true)
          expect(properties).toMatchObject({
            query: "tanker",
            uri: "/?q=tanker",
            user: { id: "local" },
            encrypted: false,
            exists: false,
            zipSize: 0
          })
          expect(properties.projects.map((item) => item.name)).toEqual([project])
          expect(properties.filename).toMatch(/^file:\/\/.*\/archive_local_\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d\.\d{3}Z%5BGMT%5D\.zip$/)
          expect(properties.password).toBeUndefined()

          const done = yield* eventually(readTask(started.name), (task) => task.state !== "RUNNING", "60 seconds")
          const zipFile = fileURLToPath(properties.filename)
          expect(done).toMatchObject({ state: "DONE", progress: 1, result: zipFile })
          expect(done.properties.batchDownload).toMatchObject({ exists: true, zipSize: fs.statSync(zipFile).size })

          const served = yield* request(`/api/task/${started.name}/result`)
          expect(served.headers.get("content-type")).toBe("application/zip")
          expect(served.headers.get("content-disposition")).toBe(`attachment;filename="${path.basename(zipFile)}"`)
          const entries = yield* resultZip(done)
          expect(entries.map((entry) => entry.name).sort()).toEqual([entryName(ships!), entryName(moreShips!)].sort())
          for (const entry of entries) {
            const original = fs.readFileSync(`/${entry.name}`)
            expect(entry.size).toBe(original.length)
            expect(entry.bytes.equals(original)).toBe(true)
            expect(entry.encrypted).toBe(false)
          }
          // No temporary file is left next to the archive.
          expect(fs.readdirSync(downloadDir).filter((name) => name.endsWith(".part"))).toEqual([])
        })
      )

      it.effect("an object query is used as the raw query and shown as compact JSON", () =>
        Effect.gen(function* () {
          const raw = { query_string: { query: "bank" } }
          const done = yield* download(raw)
          expect(done.state).toBe("DONE")
          expect(done.properties.batchDownload.query).toBe(JSON.stringify(raw))
          const entries = yield* resultZip(done)
          expect(entries.map((entry) => path.basename(entry.name))).toEqual(["banks.txt"])
          // A query the search backend refuses ends the task in ERROR, with no archive.
          const refused = yield* download({ no_such_query: {} })
          expect(refused.state).toBe("ERROR")
          expect(refused.error).toMatch(/^BatchDownloadSearchFailed: /)
          expect(refused.properties.batchDownload.exists).toBe(false)
        })
      )

      it.effect("an embedded document's bytes are taken out of its root file, named after the root", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const done = yield* download("parties")
          const entries = yield* resultZip(done)
          expect(entries).toHaveLength(1)
          expect(entries[0]!.name).toBe(entryName(path.join(server.workDir, "contract.eml")))
          expect(entries[0]!.bytes.equals(attachmentBytes)).toBe(true)
          // The e-mail and its attachment both match: one entry of that name, the second skipped.
          const both = yield* resultZip(yield* download("contract"))
          expect(both.map((entry) => path.basename(entry.name))).toEqual(["contract.eml"])
        })
      )

      it.effect("stops adding after batchDownloadMaxNbFiles files and once batchDownloadMaxSize is exceeded", () =>
        Effect.gen(function* () {
          // "cargo" matches the two ship files.
          yield* patchSettings({ batchDownloadMaxNbFiles: "1" })
          const oneFile = yield* download("cargo")
          expect(yield* resultZip(oneFile)).toHaveLength(1)
          expect(oneFile.progress).toBe(1)
          // The size is checked before each file: the first file is added, then the limit stops the second.
          yield* patchSettings({ batchDownloadMaxNbFiles: "10000", batchDownloadMaxSize: "10" })
          expect(yield* resultZip(yield* download("cargo"))).toHaveLength(1)
          yield* patchSettings({ batchDownloadMaxSize: "100M" })
          expect(yield* resultZip(yield* download("cargo"))).toHaveLength(2)
        })
      )

      it.effect("a download stopped while it writes ends CANCELLED and leaves no archive, finished or partial", () =>
        Effect.gen(function* () {
          // Indexed small, then replaced on disk by 64 MiB of random bytes: compressing them takes a while.
          const big = yield* writeText("gigantic.bin.txt", "A gigantic ledger.")
          yield* indexFiles(project, [big])
          fs.writeFileSync(big, randomBytes(64 * 1024 ** 2))
          const response = yield* startDownload({ projectIds: [project], query: "gigantic" })
          const started = (yield* bodyJson(response)) as TaskView
          const zipFile = fileURLToPath(started.properties.batchDownload.filename)
          yield* eventually(
            readTask(started.name),
            (task) => task.properties.batchDownload.zipSize > 0 || task.state !== "RUNNING",
            "60 seconds"
          )
          const stop = yield* request(`/api/task/stop/${started.name}`, { method: "PUT" })
          expect(yield* bodyJson(stop)).toBe(true)
          const stopped = yield* eventually(readTask(started.name), (task) => task.state !== "RUNNING", "60 seconds")
          expect(stopped.state).toBe("CANCELLED")
          yield* eventually(
            Effect.sync(() => fs.readdirSync(downloadDir).filter((name) => name.includes(path.basename(zipFile)))),
            (names) => names.length === 0
          )
          expect(fs.existsSync(zipFile)).toBe(false)
          expect((yield* request(`/api/task/${started.name}/result`)).status).toBe(204)
          fs.rmSync(big)
        })
      )

      it.effect("without any hit the task is DONE with no result: 204 and no archive", () =>
        Effect.gen(function* () {
          const before = fs.readdirSync(downloadDir)
          const done = yield* download("nothingmatchesthis")
          expect(done.state).toBe("DONE")
          expect(done.result).toBeUndefined()
          expect(done.properties.batchDownload.exists).toBe(false)
          expect((yield* request(`/api/task/${done.name}/result`)).status).toBe(204)
          expect(fs.readdirSync(downloadDir)).toEqual(before)
        })
      )

      it.effect("with batchDownloadEncrypt the entries are AES-encrypted: the owner's password opens them, another fails", () =>
        Effect.gen(function* () {
          yield* patchSettings({ batchDownloadEncrypt: "true" })
          const done = yield* download("bank")
          yield* patchSettings({ batchDownloadEncrypt: "false" })
          const { encrypted, password } = done.properties.batchDownload
          expect(encrypted).toBe(true)
          expect(password).toMatch(/^[A-Za-z0-9]{16}$/)
          const entries = yield* resultZip(done, password)
          expect(entries).toHaveLength(1)
          expect(entries[0]!.encrypted).toBe(true)
          expect(entries[0]!.bytes.toString("utf8")).toContain("Trust One")
          const wrong = yield* Effect.either(readZip(yield* resultBytes(done), "wrong-password-00"))
          expect(wrong._tag).toBe("Left")
        })
      )

      it.effect("archives older than batchDownloadTimeToLive are deleted: the result is then 404 and exists false", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const old = yield* download("tanker")
          const fresh = yield* download("bank")
          const oldFile = fileURLToPath(old.properties.batchDownload.filename)
          const dayAndMore = new Date(Date.now() - 25 * 3_600_000)
          fs.utimesSync(oldFile, dayAndMore, dayAndMore)
          const removed = yield* Effect.provide(
            Effect.flatMap(BatchDownloads, (downloads) => downloads.removeExpired),
            server.context
          )
          expect(removed).toEqual([path.basename(oldFile)])
          expect(fs.existsSync(oldFile)).toBe(false)
          expect((yield* request(`/api/task/${old.name}/result`)).status).toBe(404)
          expect((yield* readTask(old.name)).properties.batchDownload).toMatchObject({ exists: false, zipSize: 0 })
          expect((yield* request(`/api/task/${fresh.name}/result`)).status).toBe(200)
        })
      )

      it.effect("refuses bad options with 400 and projects not granted with 403", () =>
        Effect.gen(function* () {
          const options = yield* request("/api/task/batchDownload", { method: "OPTIONS" })
          expect(options.status).toBe(200)
          expect(options.headers.get("access-control-allow-methods")).toBe("OPTIONS, POST")
          for (const body of [
            {},
            { options: { query: "x" } },
            { options: { projectIds: [], query: "x" } },
            { options: { projectIds: [project] } },
            { options: { projectIds: [project], query: "" } }
          ]) {
            const response = yield* postJson("/api/task/batchDownload", body)
            expect(response.status).toBe(400)
            expect(yield* bodyJson(response)).toHaveProperty("error")
          }
          const forbidden = yield* startDownload({ projectIds: [project, "someone-elses"], query: "x" })
          expect(forbidden.status).toBe(403)
          // Cleaned tasks are answered with their download properties too.
          const cleaned = (yield* Effect.flatMap(request("/api/task/clean", { method: "POST" }), bodyJson)) as ReadonlyArray<TaskView>
          const downloads = cleaned.filter((task) => task.name.includes("BatchDownloadRunner"))
          expect(downloads.length).toBeGreaterThan(0)
          expect(downloads.every((task) => typeof task.properties.batchDownload.uuid === "string")).toBe(true)
        })
      )
    })
  })
}
