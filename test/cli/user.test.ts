import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { postgresAvailable, postgresSkipReason, migratedPostgres } from "../helpers/databases.ts"
import { request, testServerLayer } from "../helpers/server.ts"
import { childEnv } from "./quarryProcess.ts"
import { basic } from "../helpers/users.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
// Node with tsx's loader, as `npm run quarry` runs it: the tsx command would start a second Node process for each run.
const nodeWithTsx = [process.execPath, "--import", "tsx"] as const
const home = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cli-home-"))
const embedded = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cli-db-"))
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true })
  fs.rmSync(embedded, { recursive: true, force: true })
})

// A HOME of its own so that no settings file of the machine is read, and no DS_DOCKER_ variable leaks in.
const env = childEnv(home)

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const quarry = (...args: ReadonlyArray<string>) =>
  Effect.async<Run>((resume) => {
    const child = spawn(nodeWithTsx[0], [...nodeWithTsx.slice(1), "src/main.ts", ...args], { cwd: root, env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    // A timed-out test must not leave its process holding the database.
    return Effect.sync(() => child.kill())
  })

// Each run starts tsx and (mostly) an embedded database: seconds each, many more on a loaded machine.
const spawnTimeout = 180_000

const lines = (text: string) => text.split("\n").filter((line) => line.length > 0)

// Before the embedded suite: its `layer` call rebinds the module's `it` to the test server's runtime.
describe.skipIf(!postgresAvailable)(`quarry user on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  it.scoped(
    "adds, lists and removes users",
    () =>
      Effect.gen(function* () {
        const { url } = yield* migratedPostgres
        const db = `--dataSourceUrl=${url}`
        expect(yield* quarry("user", "add", "dora", "--password", "pw", "--projects", "x", db)).toEqual({
          code: 0,
          stdout: "user dora created\n",
          stderr: ""
        })
        expect(lines((yield* quarry("user", "list", db)).stdout)).toEqual(["dora\t-\t-\tx\t-"])
        expect((yield* quarry("user", "remove", "dora", db)).stdout).toBe("user dora removed\n")
        expect(yield* quarry("user", "list", db)).toEqual({ code: 0, stdout: "", stderr: "" })
      }),
    spawnTimeout
  )
})

describe("quarry user on an embedded database", () => {
  const db = `--dataSourceUrl=pglite:${embedded}`

  it.effect(
    "adds a user, then updates it",
    () =>
      Effect.gen(function* () {
        const added = yield* quarry(
          "user",
          "add",
          "alice",
          "--password",
          "first pw",
          "--email",
          "alice@example.org",
          "--name",
          "Alice A",
          "--projects",
          "p1,p2",
          "--admin",
          db
        )
        expect(added).toEqual({ code: 0, stdout: "user alice created\n", stderr: "" })
        const updated = yield* quarry(
          "user",
          "add",
          "alice",
          "--password",
          "second pw",
          "--name",
          "Alice B",
          "--projects",
          "p3",
          "--admin",
          db
        )
        expect(updated).toEqual({ code: 0, stdout: "user alice updated\n", stderr: "" })
      }),
    spawnTimeout
  )

  it.effect(
    "lists users one per line and removes them",
    () =>
      Effect.gen(function* () {
        expect((yield* quarry("user", "add", "bob", "--password", "pw", db)).code).toBe(0)
        const listed = yield* quarry("user", "list", db)
        expect(listed.code).toBe(0)
        expect(lines(listed.stdout)).toEqual(["alice\tAlice B\t-\tp3\tadmin", "bob\t-\t-\t-\t-"])
        expect(yield* quarry("user", "remove", "bob", db)).toEqual({ code: 0, stdout: "user bob removed\n", stderr: "" })
        const again = yield* quarry("user", "remove", "bob", db)
        expect(again.code).toBe(2)
        expect(lines(again.stderr)).toEqual(["quarry: user bob not found"])
      }),
    spawnTimeout
  )

  it.effect(
    "rejects bad command lines and bad users with one line and status 2",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
          [["user", "add", "carl"], "quarry: user add needs --password <pw>"],
          [["user", "add", "a:b", "--password", "pw"], "quarry: a login is 1 to 96 characters, without spaces or ':'"],
          [["user", "list", "--bogus", "1"], "quarry: unknown option --bogus (see --help)"],
          [["user", "remove", "bob", "--admin"], "quarry: --admin applies to user add only"]
        ]
        // At once: only the bad login's run opens the database (the others are refused before), so none meets its lock.
        const runs = yield* Effect.forEach(cases, ([args]) => quarry(...args, db), { concurrency: "unbounded" })
        runs.forEach((run, index) => {
          expect(run.code).toBe(2)
          expect(lines(run.stderr)).toEqual([cases[index]![1]])
        })
      }),
    spawnTimeout
  )

  describe("while a server holds the database", () => {
    layer(testServerLayer({ database: "pglite", cli: { mode: "SERVER", dataSourceUrl: `pglite:${embedded}` } }))((it) => {
      it.effect("the server authenticates the user the command line created", () =>
        Effect.gen(function* () {
          expect((yield* request("/api/status", { headers: { authorization: basic("alice", "second pw") } })).status).toBe(200)
          expect((yield* request("/api/status", { headers: { authorization: basic("alice", "first pw") } })).status).toBe(401)
        })
      )

      it.effect(
        "the command says in one line that the database is in use, and exits non-zero",
        () =>
          Effect.gen(function* () {
            const run = yield* quarry("user", "list", db)
            expect(run.code).toBe(2)
            expect(run.stdout).toBe("")
            expect(lines(run.stderr)).toEqual([
              `quarry: the embedded database ${embedded} is in use by process ${process.pid}; stop that Quarry first or use --dataSourceUrl postgresql://…`
            ])
          }),
        spawnTimeout
      )
    })
  })
})
