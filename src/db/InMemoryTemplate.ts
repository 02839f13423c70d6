/**
 * A fresh PGlite in memory runs initdb inside WebAssembly, 3–8 s of one core. Every in-memory database is the same
 * until migrations run, so the first one's files are kept in the user's cache and the next ones load that copy
 * (under a second). The copy is named after PGlite's version, so an upgrade makes a new one; a copy that does not
 * load is made anew. It lives under the user's own cache folder, not a shared temporary one, so that no other user
 * of the machine can plant a database there.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { PGlite, type PGliteOptions } from "@electric-sql/pglite"

const pgliteVersion = async () => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const manifest = JSON.parse(await fs.readFile(path.join(path.dirname(entry), "..", "package.json"), "utf8")) as { version: string }
  return manifest.version
}

const templateFile = async () =>
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "quarry", `pglite-${await pgliteVersion()}-initdb.tar`)

/** Writes beside the final name and renames, so that a process starting meanwhile never reads half a copy. */
const saveTemplate = async (db: PGlite, file: string) => {
  const files = await db.dumpDataDir("none")
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const partial = `${file}.${process.pid}.${Date.now()}`
  await fs.writeFile(partial, new Uint8Array(await files.arrayBuffer()), { mode: 0o600 })
  await fs.rename(partial, file)
}

/** A new in-memory PGlite, from the cached copy of a fresh one when there is one. */
export const createInMemory = async (options: PGliteOptions): Promise<PGlite> => {
  const file = await templateFile()
  const saved = await fs.readFile(file).catch(() => undefined)
  if (saved !== undefined) {
    const loaded = await PGlite.create({ ...options, loadDataDir: new Blob([saved]) }).catch(() => undefined)
    if (loaded !== undefined) return loaded
  }
  const db = await PGlite.create(options)
  // A cache that cannot be written (read-only home) costs the next start its initdb, nothing else.
  await saveTemplate(db, file).catch(() => undefined)
  return db
}
