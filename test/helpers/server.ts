import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Clock, Context, Effect, Layer } from "effect"
import { resolveSettings, type SettingsShape } from "../../src/config/Settings.ts"
import { HttpServerInfo } from "../../src/http/Server.ts"
import { quarryLayer } from "../../src/Quarry.ts"
import { dataSourceUrlFor, type DatabaseKind } from "./databases.ts"

export interface TestServerShape {
  /** Base URL of the server, e.g. http://127.0.0.1:41234 */
  readonly url: string
  readonly settings: SettingsShape
  /** A fresh folder the test may use (dataDir by default). */
  readonly workDir: string
  /** The running service's context, so that tests can call its services directly (e.g. to create users). */
  readonly context: Context.Context<Layer.Layer.Success<ReturnType<typeof quarryLayer>>>
}

export class TestServer extends Context.Tag("test/TestServer")<TestServer, TestServerShape>() {}

export interface TestServerOptions {
  readonly database: DatabaseKind
  /** Command-line options, as `--name value` would give them. */
  readonly cli?: Readonly<Record<string, string>>
  /** DS_DOCKER_* variables. */
  readonly env?: Readonly<Record<string, string>>
}

/**
 * A real Quarry on an ephemeral loopback port, on an in-memory PGlite or a throwaway PostgreSQL database,
 * with a fresh dataDir. Nothing is read from the machine's default settings file.
 */
export const testServerLayer = (options: TestServerOptions) =>
  Layer.scoped(
    TestServer,
    Effect.gen(function* () {
      const workDir = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-test-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      const dataSourceUrl = yield* dataSourceUrlFor(options.database)
      const settings = yield* resolveSettings({
        env: options.env ?? {},
        cli: { tcpListenPort: "0", dataDir: workDir, dataSourceUrl, ...options.cli },
        defaultSettingsFile: path.join(workDir, "no-default-settings.properties")
      }).pipe(Effect.orDie)
      // The server runs on the real clock even inside tests that use the TestClock: its timers (engine polling,
      // leases, the LISTEN handshake) would otherwise never fire.
      const context = yield* Layer.build(quarryLayer(settings)).pipe(Effect.withClock(Clock.make()), Effect.orDie)
      const info = Context.get(context, HttpServerInfo)
      return { url: info.url, settings, workDir, context }
    })
  )

/** fetch against the test server, as an Effect. */
export const request = (pathAndQuery: string, init?: RequestInit) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    return yield* Effect.promise(() => fetch(`${server.url}${pathAndQuery}`, init))
  })

export const bodyJson = (response: Response) => Effect.promise(() => response.json() as Promise<unknown>)
export const bodyText = (response: Response) => Effect.promise(() => response.text())
