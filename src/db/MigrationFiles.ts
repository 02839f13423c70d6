/**
 * The plain SQL files of `migrations/`, read without Effect or a database: the embedded database's thread names its
 * cached migrated copy after them (see EmbeddedTemplates.ts) and loads nothing else.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const migrationsDirectory = fileURLToPath(new URL("../../migrations", import.meta.url))

export interface MigrationFile {
  readonly id: number
  readonly name: string
  readonly file: string
}

/** The migrations in the order they apply: `NNNN_name.sql`, by number. */
export const listMigrationFiles = async (): Promise<ReadonlyArray<MigrationFile>> => {
  const names = await fs.readdir(migrationsDirectory)
  return names
    .flatMap((name) => {
      const match = /^(\d{4})_(.+)\.sql$/.exec(name)
      return match ? [{ id: Number(match[1]), name: match[2]!, file: path.join(migrationsDirectory, name) }] : []
    })
    .sort((a, b) => a.id - b.id)
}

/** A digest of every migration's name and text: a database migrated by other files has another fingerprint. */
export const migrationsFingerprint = async (): Promise<string> => {
  const hash = createHash("sha256")
  for (const migration of await listMigrationFiles()) {
    hash.update(`${migration.id} ${migration.name}\0`)
    hash.update(await fs.readFile(migration.file))
    hash.update("\0")
  }
  return hash.digest("hex").slice(0, 16)
}
