import * as fs from "node:fs"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted, Schema } from "effect"

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

/** Starts PGlite and serves it on a loopback port so that @effect/sql-pg talks to it like to any server. */
const embedded = (location: string) =>
  Effect.gen(function* () {
    const directory = location === "memory" ? undefined : location
    if (directory !== undefined) yield* lockDirectory(directory)
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(directory === undefined ? { extensions: { pg_trgm } } : { dataDir: directory, extensions: { pg_trgm } }),
        catch: (cause) => new DatabaseUnavailable({ url: `pglite:${location}`, reason: String(cause) })
      }),
      (db) => Effect.promise(() => db.close())
    )
    // Room for more than one connection, so that a client reconnecting after a drop is not refused; the pool
    // itself keeps to one (see databaseLayer).
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 8 })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => server.start(),
        catch: (cause) => new DatabaseUnavailable({ url: `pglite:${location}`, reason: String(cause) })
      }),
      () => Effect.promise(() => server.stop())
    )
    const [host, port] = server.getServerConn().split(":")
    return { host: host ?? "127.0.0.1", port: Number(port) }
  })

const clientLayer = (config: PgClient.PgClientConfig, url: string) =>
  PgClient.layer({ maxConnections: 10, connectTimeout: "10 seconds", ...config }).pipe(
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
        Effect.map(({ host, port }) =>
          Layer.merge(
            // One connection: PGlite has a single session, and the socket server interleaves the protocol messages
            // of several connections, so a transaction beginning or ending between another connection's Parse and
            // Bind made that statement fail or lose its write. Statements queue on the pool instead.
            clientLayer({ host, port, database: "postgres", username: "postgres", maxConnections: 1 }, dataSourceUrl),
            Layer.succeed(DatabaseInfo, { kind: "pglite", deliversNotifications: false })
          )
        )
      )
    )
  }
  return Layer.merge(
    clientLayer({ url: Redacted.make(dataSourceUrl) }, dataSourceUrl.replace(/\/\/[^@/]*@/, "//***@")),
    Layer.succeed(DatabaseInfo, { kind: "postgres", deliversNotifications: true })
  )
}
