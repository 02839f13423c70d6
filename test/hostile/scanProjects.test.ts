import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ProjectForbidden } from "../../src/domain/project/ProjectErrors.ts"
import { eventually } from "../engine/helpers.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { quarryClient } from "../rpc/client.ts"
import { type Credential, threeWays } from "./threeWays.ts"

interface View {
  readonly name: string
  readonly state: string
  readonly result?: unknown
}

const post = (credential: Credential, pathAndQuery: string, options: Readonly<Record<string, unknown>>) =>
  request(pathAndQuery, {
    method: "POST",
    headers: { ...credential.headers, "content-type": "application/json" },
    body: JSON.stringify({ options })
  })

/** The number of files a scan queued, once it has ended. */
const scanned = (credential: Credential, directory: string, options: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const response = yield* post(credential, `/api/task/batchUpdate/scan${directory}`, options)
    expect(response.status).toBe(200)
    const view = (yield* bodyJson(response)) as View
    const done = yield* eventually(
      Effect.flatMap(request(`/api/task/${encodeURIComponent(view.name)}`, { headers: credential.headers }), bodyJson).pipe(
        Effect.map((body) => body as View)
      ),
      (current) => current.state === "DONE" || current.state === "ERROR",
      "60 seconds"
    )
    expect(done.state).toBe("DONE")
    return done.result
  })

/**
 * dataDir/alice (Alice's project) holds a file, a link to Bob's folder and a link out of the data folder;
 * dataDir/alice2 shares Alice's folder name as a prefix; dataDir/bob (Bob's project) holds a file.
 */
const folders = (dataDir: string, outside: string) => {
  for (const name of ["alice", "alice2", "bob"]) fs.mkdirSync(path.join(dataDir, name))
  fs.writeFileSync(path.join(dataDir, "alice", "notes.txt"), "Alice's notes")
  fs.writeFileSync(path.join(dataDir, "alice2", "other.txt"), "not Alice's")
  fs.writeFileSync(path.join(dataDir, "bob", "secret.txt"), "Bob's secret")
  fs.writeFileSync(path.join(outside, "hostname"), "a file of the machine")
  fs.symlinkSync(path.join(dataDir, "bob"), path.join(dataDir, "alice", "to-bob"))
  fs.symlinkSync(outside, path.join(dataDir, "alice", "to-outside"))
}

describe("Scans and index tasks stay in the project's source folder (SERVER mode)", () => {
  layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER" } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "a user cannot scan another user's folder into their project, with Basic, an API key, a cookie or RPC; followed links stay in the boundary",
      () =>
        Effect.gen(function* () {
          const dataDir = (yield* TestServer).workDir
          const outside = yield* Effect.acquireRelease(
            Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-outside-"))),
            (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
          )
          folders(dataDir, outside)
          const [admin] = yield* threeWays("scanroot", "root password", { admin: true })
          yield* threeWays("scanbob", "bob password", { projects: ["bob-files"] })
          const alice = yield* threeWays("scanalice", "alice password", { projects: ["alice-files"] })
          for (const [name, folder] of [
            ["alice-files", "alice"],
            ["bob-files", "bob"]
          ]) {
            const created = yield* request("/api/project", {
              method: "POST",
              headers: { ...admin!.headers, "content-type": "application/json" },
              body: JSON.stringify({ name, sourcePath: path.join(dataDir, folder!) })
            })
            expect(created.status).toBe(201)
          }
          const intoAlice = { defaultProject: "alice-files" }

          for (const credential of alice) {
            const refused: ReadonlyArray<string> = [
              `/api/task/batchUpdate/index${path.join(dataDir, "bob")}`,
              `/api/task/batchUpdate/scan${path.join(dataDir, "bob")}`,
              `/api/task/batchUpdate/scan${path.join(dataDir, "alice2")}`,
              `/api/task/batchUpdate/scan${path.join(dataDir, "alice", "to-bob")}`,
              `/api/task/batchUpdate/scan${dataDir}`,
              "/api/task/batchUpdate/index/file"
            ]
            for (const route of refused) {
              const response = yield* post(credential, route, intoAlice)
              expect({ status: response.status, body: yield* bodyJson(response) }, `${credential.name} ${route}`).toEqual({
                status: 403,
                body: { error: expect.stringContaining("source folder of project alice-files") }
              })
            }
            const rpc = yield* quarryClient("ndjson", credential.rpc)
            expect(
              yield* Effect.flip(rpc.startScan({ path: path.join(dataDir, "bob"), options: intoAlice })),
              credential.name
            ).toBeInstanceOf(ProjectForbidden)
            expect(
              yield* Effect.flip(rpc.scanAndIndex({ path: path.join(dataDir, "bob"), options: intoAlice })),
              credential.name
            ).toBeInstanceOf(ProjectForbidden)
            expect(yield* Effect.flip(rpc.scanAndIndex({ options: intoAlice })), credential.name).toBeInstanceOf(ProjectForbidden)
          }

          // Alice scans her own folder; neither link is followed (Bob's folder is outside hers, the other outside dataDir).
          expect(yield* scanned(alice[0]!, path.join(dataDir, "alice"), { ...intoAlice, followSymlinks: true })).toBe(1)
          // An administrator's scan follows links within the data folder only.
          expect(yield* scanned(admin!, path.join(dataDir, "alice"), { defaultProject: "admin-scan", followSymlinks: true })).toBe(2)
        })
    )
  })
})
