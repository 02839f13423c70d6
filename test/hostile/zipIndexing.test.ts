import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { eventually } from "../engine/helpers.ts"
import { bodyJson, TestServer, testServerLayer } from "../helpers/server.ts"
import { liarZip, shortCompressedZip, truncatedZip } from "./files.ts"

interface TaskView {
  readonly name: string
  readonly state: string
  readonly result?: unknown
}

interface Hit {
  readonly _source: { readonly path: string; readonly status: string; readonly metadata: Record<string, string> }
}

/** A server over an on-disk PGlite and a data folder that outlive it, so that a second server can take over. */
const startServer = (dataDir: string, database: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      testServerLayer({ database: "pglite", cli: { dataDir, dataSourceUrl: `pglite:${database}` } }),
      scope
    )
    return { server: Context.get(context, TestServer), stop: Scope.close(scope, Exit.void) }
  })

const call = (url: string, init?: RequestInit) => Effect.promise(() => fetch(url, init))

const allTasks = (url: string) =>
  Effect.flatMap(call(`${url}/api/task/all`), bodyJson).pipe(Effect.map((body) => body as ReadonlyArray<TaskView>))

const allDone = (url: string) =>
  eventually(
    allTasks(url),
    (tasks) => tasks.length > 0 && tasks.every((task) => task.state !== "RUNNING" && task.state !== "QUEUED"),
    "120 seconds"
  )

const documents = (url: string) =>
  Effect.gen(function* () {
    const response = yield* call(`${url}/api/index/search/local-datashare/_search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: { match_all: {} }, size: 50 })
    })
    const body = (yield* bodyJson(response)) as { hits: { hits: ReadonlyArray<Hit> } }
    return new Map(body.hits.hits.map((hit) => [path.basename(hit._source.path), hit._source]))
  })

describe("Hostile zips through the index task of a running server", () => {
  it.scopedLive(
    "a liar zip, a zip with short compressed sizes and a truncated zip are failed files; the server answers and restarts",
    () =>
      Effect.gen(function* () {
        const root = yield* Effect.acquireRelease(
          Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-hostile-"))),
          (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
        )
        const dataDir = path.join(root, "data")
        fs.mkdirSync(dataDir)
        fs.writeFileSync(path.join(dataDir, "liar.zip"), liarZip())
        fs.writeFileSync(path.join(dataDir, "short.zip"), shortCompressedZip())
        fs.writeFileSync(path.join(dataDir, "truncated.zip"), truncatedZip())
        fs.writeFileSync(path.join(dataDir, "fine.txt"), "an ordinary file next to the hostile ones")
        const database = path.join(root, "db")

        const first = yield* startServer(dataDir, database)
        yield* call(`${first.server.url}/api/task/batchUpdate/index/file`, { method: "POST" })
        const tasks = yield* allDone(first.server.url)
        expect(tasks.map((task) => task.state)).toEqual(["DONE", "DONE"])
        expect((yield* call(`${first.server.url}/api/status`)).status).toBe(200)

        const indexed = yield* documents(first.server.url)
        const failure = (name: string) => indexed.get(name)?.metadata["tika_metadata_x_tika_exception_runtime"]
        expect(indexed.get("fine.txt")?.status).toBe("INDEXED")
        expect(failure("fine.txt")).toBeUndefined()
        expect(["liar.zip", "short.zip", "truncated.zip"].map((name) => indexed.get(name)?.status)).toEqual(["FAILED", "FAILED", "FAILED"])
        expect(failure("liar.zip")).toMatch(/^small\.txt: too many bytes in the stream/)
        expect(failure("short.zip")).toMatch(/^cut\.txt: unexpected end of file/)
        expect(failure("truncated.zip")).toMatch(/^not a readable zip archive/)
        const failed = yield* call(`${first.server.url}/api/index/search/local-datashare/_search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: { query_string: { query: "status:FAILED" } } })
        })
        expect(((yield* bodyJson(failed)) as { hits: { total: { value: number } } }).hits.total.value).toBe(3)

        // The same files queued again and the server stopped at once: the next server takes the index task over.
        yield* call(`${first.server.url}/api/task/batchUpdate/index/file`, { method: "POST" })
        yield* first.stop
        const second = yield* startServer(dataDir, database)
        yield* Effect.addFinalizer(() => second.stop)
        expect((yield* allDone(second.server.url)).every((task) => task.state === "DONE")).toBe(true)
        expect((yield* call(`${second.server.url}/api/status`)).status).toBe(200)
        expect((yield* documents(second.server.url)).get("liar.zip")).toMatchObject({ status: "FAILED" })
      }),
    180_000
  )
})
