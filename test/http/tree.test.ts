import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../helpers/databases.ts"
import { bodyJson, request, TestServer, testServerLayer } from "../helpers/server.ts"
import { addUser, basic } from "../helpers/users.ts"

/**
 * root/data is the data folder; root/data2 shares its prefix; root/outside is reached by symbolic links from
 * inside the data folder. Permissions are set explicitly so that the umask does not change `prot`.
 */
const makeFixture = (root: string) => {
  const dataDir = path.join(root, "data")
  fs.mkdirSync(root)
  const file = (relative: string, content: string) => {
    fs.writeFileSync(path.join(root, relative), content)
    fs.chmodSync(path.join(root, relative), 0o644)
  }
  const dir = (relative: string) => {
    fs.mkdirSync(path.join(root, relative))
    fs.chmodSync(path.join(root, relative), 0o755)
  }
  for (const folder of ["data", "data/sub", "data/sub/deeper", "data2", "outside"]) dir(folder)
  file("data/doc1.txt", "x".repeat(50))
  file("data/Zeta.txt", "upper case sorts first")
  file("data/sub/nested.txt", "nested")
  file("data/sub/deeper/leaf.txt", "leaf")
  file("data2/x.txt", "sibling")
  file("outside/secret.txt", "secret")
  fs.symlinkSync(path.join(root, "outside"), path.join(dataDir, "escape"))
}

/** A request sent as written: fetch would resolve `..` and `%2e%2e` before sending, which hides what is tested. */
const rawGet = (pathAndQuery: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.async<{ readonly status: number; readonly body: string }>((resume) => {
      const url = new URL(server.url)
      const outgoing = http.get({ host: url.hostname, port: url.port, path: pathAndQuery }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })))
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
    })
  )

const directorySize = (target: string) => fs.statSync(target).size

// `layer` rather than `it.layer`: @effect/vitest's `it.layer` is rebound by each call, so a later suite would
// also rebuild (and nest under) the servers of the suites before it.
for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`GET /api/tree on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    // Created before the server starts and removed after it stops; nothing is created when the suite is skipped.
    const root = path.join(os.tmpdir(), `quarry-tree-${randomUUID()}`)
    const dataDir = path.join(root, "data")
    beforeAll(() => makeFixture(root))
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
    const tree = (target: string, query = "") => request(`/api/tree${target}${query}`)

    const subAtLastLevel = () => ({
      type: "directory",
      name: `${dataDir}/sub`,
      prot: "drwxr-xr-x",
      size: directorySize(path.join(dataDir, "sub")),
      contents: []
    })
    const oneLevel = () => ({
      type: "directory",
      name: dataDir,
      prot: "drwxr-xr-x",
      size: directorySize(dataDir),
      contents: [
        { type: "file", name: `${dataDir}/Zeta.txt`, prot: "-rw-r--r--", size: 22 },
        { type: "file", name: `${dataDir}/doc1.txt`, prot: "-rw-r--r--", size: 50 },
        {
          type: "link",
          name: `${dataDir}/escape`,
          prot: "lrwxrwxrwx",
          size: path.join(root, "outside").length,
          target: path.join(root, "outside")
        },
        subAtLastLevel()
      ]
    })

    layer(testServerLayer({ database, cli: { dataDir } }))((it) => {
      it.effect("lists one level in the tree -J layout, sorted by path, links shown and not followed", () =>
        Effect.gen(function* () {
          const response = yield* tree(dataDir)
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toBe("application/json;charset=UTF-8")
          expect(yield* bodyJson(response)).toEqual(oneLevel())
        })
      )

      it.effect("lists one level for depth 0 and 1, and deeper levels for larger depths", () =>
        Effect.gen(function* () {
          expect(yield* bodyJson(yield* tree(dataDir, "?depth=0"))).toEqual(oneLevel())
          expect(yield* bodyJson(yield* tree(dataDir, "?depth=1"))).toEqual(oneLevel())
          const deeper = {
            type: "directory",
            name: `${dataDir}/sub/deeper`,
            prot: "drwxr-xr-x",
            size: directorySize(path.join(dataDir, "sub/deeper"))
          }
          const nested = { type: "file", name: `${dataDir}/sub/nested.txt`, prot: "-rw-r--r--", size: 6 }
          const twoLevels = yield* bodyJson(yield* tree(`${dataDir}/sub`, "?depth=2"))
          expect(twoLevels).toEqual({
            ...subAtLastLevel(),
            contents: [
              { ...deeper, contents: [{ type: "file", name: `${dataDir}/sub/deeper/leaf.txt`, prot: "-rw-r--r--", size: 4 }] },
              nested
            ]
          })
          const fromRoot = yield* bodyJson(yield* tree(dataDir, "?depth=2"))
          expect(fromRoot).toMatchObject({
            contents: [{}, {}, {}, { name: `${dataDir}/sub`, contents: [{ ...deeper, contents: [] }, nested] }]
          })
        })
      )

      it.effect("answers 404 for a missing path, 400 for a file and for a bad depth", () =>
        Effect.gen(function* () {
          const missing = yield* tree(`${dataDir}/nothing/here`)
          expect(missing.status).toBe(404)
          expect(yield* bodyJson(missing)).toEqual({ error: `${dataDir}/nothing/here does not exist` })
          const file = yield* tree(`${dataDir}/doc1.txt`)
          expect(file.status).toBe(400)
          expect(yield* bodyJson(file)).toEqual({ error: `${dataDir}/doc1.txt is not a directory` })
          expect((yield* tree(dataDir, "?depth=deep")).status).toBe(400)
        })
      )

      it.effect("answers 403 outside the data folder, including a sibling that shares its prefix", () =>
        Effect.gen(function* () {
          for (const outside of [root, path.join(root, "outside"), `${dataDir}2`, "/", "/etc"]) {
            const response = yield* tree(outside)
            expect(response.status, outside).toBe(403)
            expect(yield* bodyJson(response)).toEqual({ error: `${outside} is not in the data folder` })
          }
        })
      )

      it.effect("resolves .. (raw or percent-encoded) and encoded slashes before checking the data folder", () =>
        Effect.gen(function* () {
          for (const escape of [
            `${dataDir}/../outside`,
            `${dataDir}/%2e%2e/outside`,
            `${dataDir}/%2E%2E/data2`,
            `${dataDir}%2F..%2Foutside`,
            `${dataDir}/sub/..%2F..%2F..%2F..%2F..%2F..%2Fetc`,
            `/${encodeURIComponent(`${dataDir}/../outside`)}`
          ]) {
            const response = yield* rawGet(`/api/tree${escape}`)
            expect(response.status, escape).toBe(403)
            expect(response.body).not.toContain("secret")
          }
          const inside = yield* rawGet(`/api/tree${dataDir}/sub/%2e%2e`)
          expect(inside.status).toBe(200)
          expect(JSON.parse(inside.body)).toEqual(oneLevel())
        })
      )

      it.effect("refuses to follow a symbolic link that leads out of the data folder", () =>
        Effect.gen(function* () {
          for (const through of [`${dataDir}/escape`, `${dataDir}/escape/`, `${dataDir}/escape/missing`, `${dataDir}/escape/secret.txt`]) {
            const response = yield* tree(through)
            expect(response.status, through).toBe(403)
          }
        })
      )

      it.effect("addresses the same directory with a doubled slash, like the reference", () =>
        Effect.gen(function* () {
          const response = yield* tree(`/${dataDir}`)
          expect(response.status).toBe(200)
          expect(yield* bodyJson(response)).toEqual(oneLevel())
        })
      )
    })

    layer(testServerLayer({ database, cli: { mode: "SERVER" } }))((it) => {
      it.effect("does not exist in SERVER mode, even for an authenticated user", () =>
        Effect.gen(function* () {
          yield* addUser("alice", "secret")
          const server = yield* TestServer
          // The credentials work, so the 404 comes from the mode and not from authentication.
          expect((yield* request("/api/status", { headers: { Authorization: basic("alice", "secret") } })).status).toBe(200)
          for (const method of ["GET", "OPTIONS"]) {
            const response = yield* request(`/api/tree${server.workDir}`, { method, headers: { Authorization: basic("alice", "secret") } })
            expect(response.status, method).toBe(404)
            expect(yield* bodyJson(response)).toEqual({ error: "Not found" })
          }
        })
      )
    })
  })
}
