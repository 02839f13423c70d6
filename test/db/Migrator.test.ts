import * as fs from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { migrationsDirectory } from "../../src/db/MigrationFiles.ts"
import { runMigrations } from "../../src/db/Migrator.ts"
import { postgresAvailable, postgresSkipReason, throwawayPostgres } from "../helpers/databases.ts"

const migrationCount = fs.readdirSync(migrationsDirectory).filter((name) => /^\d{4}_.+\.sql$/.test(name)).length

const appliedIds = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`SELECT id FROM quarry_migrations ORDER BY id`)

// On the embedded database, see embeddedTemplates.test.ts: a new one is migrated from nothing once, then copied.
describe.skipIf(!postgresAvailable)(`migrations on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  it.scoped("two processes starting at once apply each migration exactly once", () =>
    Effect.gen(function* () {
      const { url } = yield* throwawayPostgres
      // Two separate pools stand for two processes: the advisory lock must serialise them.
      const runs = yield* Effect.all(
        [runMigrations().pipe(Effect.provide(databaseLayer(url))), runMigrations().pipe(Effect.provide(databaseLayer(url)))],
        { concurrency: 2 }
      )
      expect(runs.map((applied) => applied.length).sort()).toEqual([0, migrationCount])
      const rows = yield* appliedIds.pipe(Effect.provide(databaseLayer(url)))
      expect(rows).toHaveLength(migrationCount)
    })
  )
})
