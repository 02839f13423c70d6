/**
 * The embedded database's own thread: PGlite runs its queries synchronously inside WebAssembly, so on the main
 * thread every statement of an index task stopped the HTTP server until it ended. Here PGlite and the socket server
 * that speaks the PostgreSQL protocol for it live on a worker thread; the main thread reaches it through
 * @effect/sql-pg like any server.
 *
 * Messages: the thread posts `{ ready, host, port }` or `{ failed, reason }` once, and stops on `"stop"`.
 */
import { parentPort, workerData } from "node:worker_threads"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { createInMemory } from "./InMemoryTemplate.ts"
import { sessionSettingStatements } from "./SessionSettings.ts"

export interface EmbeddedDatabaseWorkerData {
  /** The data directory; undefined keeps the database in memory. */
  readonly directory: string | undefined
}

export type EmbeddedDatabaseWorkerMessage =
  { readonly ready: true; readonly host: string; readonly port: number } | { readonly failed: true; readonly reason: string }

const post = (message: EmbeddedDatabaseWorkerMessage) => parentPort?.postMessage(message)

const start = async ({ directory }: EmbeddedDatabaseWorkerData) => {
  const db =
    directory === undefined
      ? await createInMemory({ extensions: { pg_trgm } })
      : await PGlite.create({ dataDir: directory, extensions: { pg_trgm } })
  // PGlite has one session, which every socket connection shares: set once, the settings hold for all of them.
  await db.exec(sessionSettingStatements)
  // Room for more than one connection, so that a client reconnecting after a drop is not refused; the main
  // thread's pool itself keeps to one (see databaseLayer).
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 8 })
  await server.start()
  parentPort?.on("message", (message) => {
    if (message !== "stop") return
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
