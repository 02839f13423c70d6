import * as fs from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const migrationsDirectory = fileURLToPath(new URL("../../migrations", import.meta.url))

/** An arbitrary constant: the advisory lock that serialises migrations of processes starting at once. */
const migrationLockKey = 7_312_004_511

interface MigrationFile {
  readonly id: number
  readonly name: string
  readonly file: string
}

const listMigrations = Effect.promise(async (): Promise<ReadonlyArray<MigrationFile>> => {
  const names = await fs.readdir(migrationsDirectory)
  return names
    .flatMap((name) => {
      const match = /^(\d{4})_(.+)\.sql$/.exec(name)
      return match ? [{ id: Number(match[1]), name: match[2]!, file: path.join(migrationsDirectory, name) }] : []
    })
    .sort((a, b) => a.id - b.id)
})

/**
 * Applies the plain SQL files of `migrations/` that are not recorded yet, in order, in one transaction. The
 * transaction first takes an advisory lock, so a second process starting at the same time waits and then finds
 * everything applied.
 */
export const runMigrations = Effect.fn("Migrator.run")(function* () {
  const sql = yield* SqlClient.SqlClient
  const migrations = yield* listMigrations
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`
      yield* sql`CREATE TABLE IF NOT EXISTS quarry_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
      const applied = new Set((yield* sql<{ id: number }>`SELECT id FROM quarry_migrations`).map((row) => row.id))
      const pending = migrations.filter((migration) => !applied.has(migration.id))
      for (const migration of pending) {
        const text = yield* Effect.promise(() => fs.readFile(migration.file, "utf8"))
        yield* sql.unsafe(text)
        yield* sql`INSERT INTO quarry_migrations (id, name) VALUES (${migration.id}, ${migration.name})`
        yield* Effect.logDebug(`migration ${migration.id} ${migration.name} applied`)
      }
      return pending.map((migration) => migration.id)
    })
  )
})
