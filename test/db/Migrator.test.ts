import * as fs from "node:fs"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { migrationsDirectory, runMigrations } from "../../src/db/Migrator.ts"
import { postgresAvailable, postgresSkipReason, throwawayPostgres } from "../helpers/databases.ts"

const migrationCount = fs.readdirSync(migrationsDirectory).filter((name) => /^\d{4}_.+\.sql$/.test(name)).length

const appliedIds = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: number }>`SELECT id FROM quarry_migrations ORDER BY id`)

describe("migrations on the embedded database", () => {
  it.scoped("applies every file once, and nothing on a second run", () =>
    Effect.gen(function* () {
      const first = yield* runMigrations()
      const second = yield* runMigrations()
      expect(first).toHaveLength(migrationCount)
      expect(second).toEqual([])
      expect((yield* appliedIds).map((row) => row.id)).toEqual(first)
    }).pipe(Effect.provide(databaseLayer("pglite:memory")))
  )
})

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
