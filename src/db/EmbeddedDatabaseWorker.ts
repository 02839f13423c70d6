/**
 * The embedded database's own thread: PGlite runs its queries synchronously inside WebAssembly, so on the main
 * thread every statement of an index task stopped the HTTP server until it ended. Here PGlite and the socket server
 * that speaks the PostgreSQL protocol for it live on a worker thread; the main thread reaches it through
 * @effect/sql-pg like any server.
 *
 * Messages: the thread posts `{ ready, host, port }` or `{ failed, reason }` once, and stops on `"stop"`. Asked
 * `"keepMigratedTemplate"` after the migrations, it keeps the database's files as the migrated copy when it made the
 * database from nothing (see EmbeddedTemplates.ts), and answers `{ kept }`.
 */
import { parentPort, workerData } from "node:worker_threads"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { type Directory, keepMigratedTemplate, openEmbedded } from "./EmbeddedTemplates.ts"
import { migrationsFingerprint } from "./MigrationFiles.ts"
import { sessionSettingStatements } from "./SessionSettings.ts"

export interface EmbeddedDatabaseWorkerData {
  /** The data directory and its lock file; undefined keeps the database in memory. */
  readonly directory: Directory | undefined
}

export type EmbeddedDatabaseWorkerMessage =
  | { readonly ready: true; readonly host: string; readonly port: number }
  | { readonly failed: true; readonly reason: string }
  | { readonly kept: boolean }

/** What the main thread asks: to stop, or to keep the database just migrated from nothing as the migrated copy. */
export type EmbeddedDatabaseRequest = "stop" | "keepMigratedTemplate"

const post = (message: EmbeddedDatabaseWorkerMessage) => parentPort?.postMessage(message)

const start = async ({ directory }: EmbeddedDatabaseWorkerData) => {
  const fingerprint = await migrationsFingerprint()
  const opened = await openEmbedded({ extensions: { pg_trgm } }, directory, fingerprint)
  const db = opened.db
  // Asked once, right after the migrations: later the database holds more than they wrote.
  let mayBecomeTemplate = opened.mayBecomeTemplate
  // PGlite has one session, which every socket connection shares: set once, the settings hold for all of them.
  await db.exec(sessionSettingStatements)
  // Room for more than one connection, so that a client reconnecting after a drop is not refused; the main
  // thread's pool itself keeps to one (see databaseLayer).
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 8 })
  await server.start()
  parentPort?.on("message", (message: EmbeddedDatabaseRequest) => {
    if (message === "keepMigratedTemplate") {
      const kept = mayBecomeTemplate
        ? keepMigratedTemplate(db, fingerprint).then(
            () => true,
            () => false
          )
        : Promise.resolve(false)
      mayBecomeTemplate = false
      void kept.then((done) => post({ kept: done }))
      return
    }
    // Close the socket server first so no statement arrives while PGlite writes its last checkpoint.
    void server
      .stop()
      .then(() => db.close())
      .finally(() => process.exit(0))
  })
  const [host, port] = server.getServerConn().split(":")
  post({ ready: true, host: host ?? "127.0.0.1", port: Number(port) })
}

start(workerData as EmbeddedDatabaseWorkerData).catch((cause: unknown) =>
  post({ failed: true, reason: cause instanceof Error ? cause.message : String(cause) })
)
