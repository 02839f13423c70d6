/**
 * A new embedded database runs initdb inside WebAssembly (3–8 s of one core), then every migration (about 1 s more).
 * Every new database is the same up to there, so copies are kept in the user's cache and new ones load them (under a
 * second): the files of a fresh one (`-initdb`), and those of one just migrated by the current migration files
 * (`-migrated-<fingerprint>`, see MigrationFiles.ts). Both are named after PGlite's version, so an upgrade makes new
 * ones; a copy that does not load is made anew. They live under the user's own cache folder, not a shared temporary
 * one, so that no other user of the machine can plant a database there.
 *
 * Copies are only ever made from databases in memory: a data directory also holds the lock file naming its process,
 * which must not travel into another directory.
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

const templateFolder = () => path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "quarry")

const initdbTemplate = async () => path.join(templateFolder(), `pglite-${await pgliteVersion()}-initdb.tar`)

const migratedTemplate = async (fingerprint: string) =>
  path.join(templateFolder(), `pglite-${await pgliteVersion()}-migrated-${fingerprint}.tar`)

/** Writes beside the final name and renames, so that a process starting meanwhile never reads half a copy. */
const saveTemplate = async (db: PGlite, file: string) => {
  const files = await db.dumpDataDir("none")
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const partial = `${file}.${process.pid}.${Date.now()}`
  await fs.writeFile(partial, new Uint8Array(await files.arrayBuffer()), { mode: 0o600 })
  await fs.rename(partial, file)
}

/** A data directory, and the lock file it may hold while still new. */
export interface Directory {
  readonly path: string
  readonly lockFile: string
}

/** PGlite's options for a directory, or for memory. */
const inDirectory = (options: PGliteOptions, directory: Directory | undefined): PGliteOptions =>
  directory === undefined ? options : { ...options, dataDir: directory.path }

/** Its files other than the lock file: a directory holding none is new, and a copy may be loaded into it. */
const filesBesidesLock = async (directory: Directory) =>
  (await fs.readdir(directory.path).catch(() => [])).filter((name) => name !== directory.lockFile)

/** The database a kept copy makes, or undefined when there is no copy or it does not load. */
const loadTemplate = async (file: string, options: PGliteOptions, directory: Directory | undefined) => {
  const saved = await fs.readFile(file).catch(() => undefined)
  if (saved === undefined) return undefined
  const loaded = await PGlite.create({ ...inDirectory(options, directory), loadDataDir: new Blob([saved]) }).catch(() => undefined)
  // The directory was new: what a failed load left in it is removed, so that initdb finds it empty.
  if (loaded === undefined && directory !== undefined) {
    const left = await filesBesidesLock(directory)
    await Promise.all(left.map((name) => fs.rm(path.join(directory.path, name), { recursive: true, force: true })))
  }
  return loaded
}

export interface OpenedDatabase {
  readonly db: PGlite
  /** Made in this open from nothing but initdb, in memory: its files may become the migrated copy once migrated. */
  readonly mayBecomeTemplate: boolean
}

/**
 * Opens an embedded database: in memory (`directory` undefined) or in a directory. A new one starts from the migrated
 * copy for `fingerprint` when there is one, else from the fresh copy, else from initdb (whose result an in-memory
 * database keeps as the fresh copy).
 */
export const openEmbedded = async (
  options: PGliteOptions,
  directory: Directory | undefined,
  fingerprint: string
): Promise<OpenedDatabase> => {
  if (directory !== undefined && (await filesBesidesLock(directory)).length > 0) {
    return { db: await PGlite.create(inDirectory(options, directory)), mayBecomeTemplate: false }
  }
  const migrated = await loadTemplate(await migratedTemplate(fingerprint), options, directory)
  if (migrated !== undefined) return { db: migrated, mayBecomeTemplate: false }
  const file = await initdbTemplate()
  const fresh = await loadTemplate(file, options, directory)
  if (fresh !== undefined) return { db: fresh, mayBecomeTemplate: directory === undefined }
  const db = await PGlite.create(inDirectory(options, directory))
  // A cache that cannot be written (read-only home) costs the next start its initdb, nothing else.
  if (directory === undefined) await saveTemplate(db, file).catch(() => undefined)
  return { db, mayBecomeTemplate: directory === undefined }
}

/**
 * Keeps a database just migrated from nothing as the copy new databases start from, in place of older migrated
 * copies. A checkpoint first writes the migrations' pages, so that loading the copy replays no log.
 */
export const keepMigratedTemplate = async (db: PGlite, fingerprint: string) => {
  await db.exec("CHECKPOINT")
  const file = await migratedTemplate(fingerprint)
  await saveTemplate(db, file)
  // Another fingerprint's copy, or another version's (this one's own partial copies being written keep its name).
  const older = (await fs.readdir(templateFolder())).filter((name) => name.includes("-migrated-") && !name.startsWith(path.basename(file)))
  await Promise.all(older.map((name) => fs.rm(path.join(templateFolder(), name), { force: true })))
}
