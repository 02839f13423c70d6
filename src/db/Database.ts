import * as fs from "node:fs"
import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { InteractiveFirst } from "./InteractiveFirst.ts"
import { withSessionSettings } from "./SessionSettings.ts"
import { typeScriptWorker } from "../workers/WorkerPool.ts"
import type { EmbeddedDatabaseRequest, EmbeddedDatabaseWorkerData, EmbeddedDatabaseWorkerMessage } from "./EmbeddedDatabaseWorker.ts"

/** The embedded database directory is in use by another running Quarry process. */
export class DatabaseLocked extends Schema.TaggedError<DatabaseLocked>()("DatabaseLocked", {
  directory: Schema.String,
  pid: Schema.Number
}) {
  override get message() {
    return `the embedded database ${this.directory} is in use by process ${this.pid}; stop that Quarry first or use --dataSourceUrl postgresql://…`
  }
}

export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot open the database ${this.url}: ${this.reason}`
  }
}

/** What the rest of the code may need to know about the database it runs on. */
export interface DatabaseInfoShape {
  readonly kind: "pglite" | "postgres"
  /** LISTEN/NOTIFY reaches other connections (not through the PGlite socket, which multiplexes one session). */
  readonly deliversNotifications: boolean
}

export class DatabaseInfo extends Context.Tag("quarry/DatabaseInfo")<DatabaseInfo, DatabaseInfoShape>() {}

/**
 * An embedded database's request to keep its files, once migrated from nothing, as the copy new embedded databases
 * start from (see EmbeddedTemplates.ts). A copy that cannot be kept only costs the next new database its migrations.
 */
export class MigratedTemplate extends Context.Tag("quarry/MigratedTemplate")<MigratedTemplate, { readonly keep: Effect.Effect<void> }>() {}

const lockFileName = "quarry.pid"

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * PGlite keeps one process per data directory; a second process opening it would corrupt it. A pid file guards
 * the directory and names the owner in the error; a stale file of a dead process is taken over.
 */
const lockDirectory = (directory: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      fs.mkdirSync(directory, { recursive: true })
      const lockFile = path.join(directory, lockFileName)
      const owner = fs.existsSync(lockFile) ? Number(fs.readFileSync(lockFile, "utf8").trim()) : NaN
      if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
        return yield* new DatabaseLocked({ directory, pid: owner })
      }
      fs.writeFileSync(lockFile, String(process.pid))
      return lockFile
    }),
    (lockFile) => Effect.sync(() => fs.rmSync(lockFile, { force: true }))
  )

/**
 * Starts PGlite on its own thread (see EmbeddedDatabaseWorker.ts) and answers the loopback port of its socket
 * server, so that @effect/sql-pg talks to it like to any server while the main thread stays free for requests.
 */
const embedded = (location: string) =>
  Effect.gen(function* () {
    const directory = location === "memory" ? undefined : location
    if (directory !== undefined) yield* lockDirectory(directory)
    const unavailable = (reason: string) => new DatabaseUnavailable({ url: `pglite:${location}`, reason })
    const worker = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const data: EmbeddedDatabaseWorkerData = {
          directory: directory === undefined ? undefined : { path: directory, lockFile: lockFileName }
        }
        return typeScriptWorker(new URL("./EmbeddedDatabaseWorker.ts", import.meta.url), data)
      }),
      (worker) =>
        Effect.async<void>((resume) => {
          worker.once("exit", () => resume(Effect.void))
          worker.postMessage("stop" satisfies EmbeddedDatabaseRequest)
        }).pipe(
          // A thread that does not stop in time is ended; PGlite's files are written at each commit.
          Effect.timeoutTo({
            duration: "30 seconds",
            onSuccess: Effect.succeed,
            onTimeout: () => Effect.promise(() => worker.terminate())
          }),
          Effect.flatten,
          Effect.asVoid
        )
    )
    const address = yield* Effect.async<{ host: string; port: number }, DatabaseUnavailable>((resume) => {
      worker.once("message", (message: EmbeddedDatabaseWorkerMessage) =>
        resume(
          "ready" in message
            ? Effect.succeed({ host: message.host, port: message.port })
            : Effect.fail(unavailable("failed" in message ? message.reason : "the database thread did not start"))
        )
      )
      worker.once("error", (error) => resume(Effect.fail(unavailable(error.message))))
      worker.once("exit", (code) => resume(Effect.fail(unavailable(`the database thread exited with code ${code}`))))
    })
    const keep = Effect.async<void>((resume) => {
      worker.once("message", () => resume(Effect.void))
      worker.once("exit", () => resume(Effect.void))
      worker.postMessage("keepMigratedTemplate" satisfies EmbeddedDatabaseRequest)
    }).pipe(Effect.timeoutOption("1 minute"), Effect.asVoid)
    return { ...address, keep }
  })

/**
 * Connections, once opened, are kept: the pool closed those idle for 10 s, and a search after a pause (a reader's
 * usual rhythm) then paid a new session, whose first plans read the catalogs again (about 9 ms for each of a search's
 * two statements, against 1 ms once cached).
 */
const keptConnections = 10

const clientLayer = (config: PgClient.PgClientConfig, url: string) =>
  PgClient.layer({ maxConnections: keptConnections, minConnections: keptConnections, connectTimeout: "10 seconds", ...config }).pipe(
    Layer.mapError((error) => new DatabaseUnavailable({ url, reason: error.message }))
  )

/**
 * The SqlClient for a `--dataSourceUrl`: `postgresql://…` connects to a server, `pglite:<dir>` and `pglite:memory`
 * run the embedded database. The same SQL runs on both.
 */
export const databaseLayer = (dataSourceUrl: string) => {
  if (dataSourceUrl.startsWith("pglite:")) {
    const location = dataSourceUrl.slice("pglite:".length)
    return Layer.unwrapScoped(
      embedded(location).pipe(
        Effect.map(({ host, port, keep }) =>
          Layer.mergeAll(
            // One connection: PGlite has a single session, and the socket server interleaves the protocol messages
            // of several connections, so a transaction beginning or ending between another connection's Parse and
            // Bind made that statement fail or lose its write. Statements queue on the pool instead.
            // Waiting for that connection is the queue itself, so a long wait is no failure: an index task's statement
            // that waited behind searches and a scan for ten seconds ended the whole task.
            clientLayer(
              { host, port, database: "postgres", username: "postgres", maxConnections: 1, minConnections: 1, connectTimeout: "2 minutes" },
              dataSourceUrl
            ),
            Layer.succeed(DatabaseInfo, { kind: "pglite", deliversNotifications: false }),
            Layer.succeed(MigratedTemplate, { keep }),
            InteractiveFirst.Default
          )
        )
      )
    )
  }
  return Layer.merge(
    clientLayer({ url: Redacted.make(withSessionSettings(dataSourceUrl)) }, dataSourceUrl.replace(/\/\/[^@/]*@/, "//***@")),
    Layer.succeed(DatabaseInfo, { kind: "postgres", deliversNotifications: true })
  )
}
