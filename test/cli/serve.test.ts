import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { optionSpecs } from "../../src/config/Options.ts"
import { postgresAvailable, postgresSkipReason, migratedPostgres } from "../helpers/databases.ts"
import { isolatedHome, runQuarry, startQuarry } from "./quarryProcess.ts"

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "")

const getJson = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  })

// Concurrent: each case is a process start of a few seconds, mostly spent loading modules.
describe.concurrent("quarry refuses a bad command line with one stderr line naming the option", () => {
  const refuses = (args: ReadonlyArray<string>, named: string, env: Readonly<Record<string, string>> = {}) =>
    Effect.gen(function* () {
      const home = yield* isolatedHome
      const run = yield* runQuarry(args, home, env)
      expect(run.code).not.toBe(0)
      expect(run.code).not.toBeNull()
      expect(lines(run.stderr)).toHaveLength(1)
      expect(run.stderr).toContain(named)
      expect(run.stdout).toBe("")
      // Refused before anything started: the default embedded database was not created.
      expect(fs.existsSync(path.join(home, ".local", "share", "quarry", "db"))).toBe(false)
      return run.stderr
    })

  it.scoped("an unknown mode", () => refuses(["--mode", "CLUSTER"], "--mode"))
  it.scoped("a port out of range", () => refuses(["--tcpListenPort", "70000"], "--tcpListenPort"))
  it.scoped("a missing settings file", () => refuses(["--settings", "/nonexistent/quarry.properties"], "--settings"))
  it.scoped("a settings file that is a directory", () =>
    Effect.flatMap(isolatedHome, (dir) => refuses(["serve", "--settings", dir], "--settings"))
  )
  it.scoped("an unknown option", () => refuses(["--tcpListenPrt", "8080"], "--tcpListenPrt"))
  it.scoped("an unexpected argument", () => refuses(["serve", "now"], "now"))
  it.scoped("a bad DS_DOCKER_ variable, even with a good command-line value", () =>
    Effect.gen(function* () {
      const stderr = yield* refuses(["--mode", "LOCAL"], "--mode", { DS_DOCKER_MODE: "CLUSTER" })
      expect(stderr).toContain("from the environment")
    })
  )
})

describe("quarry serve on a port in use", () => {
  it.scoped("exits non-zero with one stderr line naming --tcpListenPort", () =>
    Effect.gen(function* () {
      const occupied = yield* Effect.acquireRelease(
        Effect.async<net.Server>((resume) => {
          const server = net.createServer().listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const port = String((occupied.address() as net.AddressInfo).port)
      const run = yield* runQuarry(["--tcpListenPort", port, "--dataSourceUrl", "pglite:memory"], yield* isolatedHome)
      expect(run.code).toBe(2)
      expect(lines(run.stderr)).toEqual([expect.stringContaining("--tcpListenPort")])
      expect(run.stderr).toContain("EADDRINUSE")
    })
  )
})

describe("quarry --help", () => {
  it.effect("lists every option with its default and exits 0", () =>
    Effect.gen(function* () {
      // The machine's HOME, since the defaults shown (and compared) derive from it; --help reads no settings.
      const run = yield* runQuarry(["--help"], os.homedir())
      expect(run.code).toBe(0)
      expect(run.stderr).toBe("")
      const help = lines(run.stdout)
      for (const spec of optionSpecs) {
        const line = help.find((text) => text.trimStart().startsWith(`--${spec.name} `))
        expect(line, spec.name).toBeDefined()
        expect(line).toContain(`(default: ${spec.defaultValue ?? "unset"})`)
      }
    })
  )
})

describe("quarry serve", () => {
  it.scoped("on an embedded database: serves, applies the precedence, locks the folder, and SIGTERM exits 0 and unlocks", () =>
    Effect.gen(function* () {
      const home = yield* isolatedHome
      const databaseDir = path.join(home, "db")
      const settingsFile = path.join(home, "quarry.properties")
      fs.writeFileSync(settingsFile, "defaultProject=from-file\ndefaultUserName=from-file\n")
      const server = yield* startQuarry(
        [
          "--tcpListenPort",
          "0",
          "--dataDir",
          path.join(home, "docs"),
          "--dataSourceUrl",
          `pglite:${databaseDir}`,
          "-s",
          settingsFile,
          "--defaultProject",
          "from-cli",
          "--batchDownloadMaxNbFiles",
          "7"
        ],
        home,
        { DS_DOCKER_DEFAULT_USER_NAME: "from-env" }
      )
      const status = yield* getJson(`${server.url}/api/status`)
      expect(status.status).toBe(200)
      expect(status.body.database).toBe(true)
      const settings = yield* getJson(`${server.url}/settings`)
      expect(settings.body).toMatchObject({ defaultProject: "from-file", defaultUserName: "from-env", batchDownloadMaxNbFiles: "7" })
      expect(settings.body).not.toHaveProperty("dataSourceUrl")
      const lockFile = path.join(databaseDir, "quarry.pid")
      expect(fs.readFileSync(lockFile, "utf8").trim()).toBe(String(server.pid))

      const second = yield* runQuarry(["--tcpListenPort", "0", "--dataSourceUrl", `pglite:${databaseDir}`], home)
      expect(second.code).toBe(2)
      expect(lines(second.stderr)).toHaveLength(1)
      expect(second.stderr).toContain(String(server.pid))

      const exit = yield* server.stop("SIGTERM")
      expect(exit.code).toBe(0)
      expect(exit.signal).toBeNull()
      expect(fs.existsSync(lockFile)).toBe(false)
      expect(lines(exit.stdout).filter((line) => line.includes("listening on"))).toHaveLength(1)
      expect(exit.stdout).toContain(`listening on ${server.url}`)
    })
  )

  it.scoped.skipIf(!postgresAvailable)(
    `on PostgreSQL in SERVER mode: serves, logs JSON, and SIGTERM exits 0${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
    () =>
      Effect.gen(function* () {
        const home = yield* isolatedHome
        const { url } = yield* migratedPostgres
        const server = yield* startQuarry(["serve", "--mode", "SERVER", "--tcpListenPort", "0", "--dataSourceUrl", url], home)
        // /settings is public in SERVER mode and shows the mode the process runs in.
        expect((yield* getJson(`${server.url}/settings`)).body).toMatchObject({ mode: "SERVER" })
        const exit = yield* server.stop("SIGTERM")
        expect(exit.code).toBe(0)
        const logLines = lines(exit.stdout).map((line) => JSON.parse(line) as { message: unknown; logLevel: unknown })
        expect(logLines.filter((line) => String(line.message).startsWith("listening on"))).toEqual([
          expect.objectContaining({ message: `listening on ${server.url}`, logLevel: "INFO" })
        ])
      })
  )

  it.scoped.skipIf(!postgresAvailable)(
    `on PostgreSQL in LOCAL mode: /api/status answers 200, and SIGTERM exits 0${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`,
    () =>
      Effect.gen(function* () {
        const home = yield* isolatedHome
        const { url } = yield* migratedPostgres
        const server = yield* startQuarry(["--tcpListenPort", "0", "--dataSourceUrl", url], home)
        const status = yield* getJson(`${server.url}/api/status`)
        expect(status.status).toBe(200)
        expect(status.body.database).toBe(true)
        expect((yield* server.stop("SIGTERM")).code).toBe(0)
      })
  )
})
