import * as fs from "node:fs/promises"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { MigratedTemplate } from "./Database.ts"
import { listMigrationFiles } from "./MigrationFiles.ts"

/** An arbitrary constant: the advisory lock that serialises migrations of processes starting at once. */
const migrationLockKey = 7_312_004_511

const listMigrations = Effect.promise(listMigrationFiles)

/**
 * Applies the plain SQL files of `migrations/` that are not recorded yet, in order, in one transaction. The
 * transaction first takes an advisory lock, so a second process starting at the same time waits and then finds
 * everything applied. A new embedded database, migrated from nothing, is then kept as the copy new ones start from.
 */
export const runMigrations = Effect.fn("Migrator.run")(function* () {
  const sql = yield* SqlClient.SqlClient
  const migrations = yield* listMigrations
  const applied = yield* sql.withTransaction(
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
  const template = yield* Effect.serviceOption(MigratedTemplate)
  if (Option.isSome(template) && applied.length > 0 && applied.length === migrations.length) yield* template.value.keep
  return applied
})
