import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { postgresAvailable, postgresSkipReason, throwawayPostgres } from "../helpers/databases.ts"

const randomPageCost = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ random_page_cost: string }>`SHOW random_page_cost`).pipe(
  Effect.map((rows) => rows[0]?.random_page_cost)
)

describe("planner costs on the embedded database", () => {
  it.scoped("its one session plans for cached data", () =>
    Effect.gen(function* () {
      expect(yield* randomPageCost).toBe("1.1")
    }).pipe(Effect.provide(databaseLayer("pglite:memory")))
  )
})

describe.skipIf(!postgresAvailable)(`planner costs on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  it.scoped("connections plan for cached data, and the URL's own options still win", () =>
    Effect.gen(function* () {
      const { url } = yield* throwawayPostgres
      const on = (dataSourceUrl: string) => randomPageCost.pipe(Effect.provide(databaseLayer(dataSourceUrl)))
      expect(yield* on(url)).toBe("1.1")
      const withOwn = new URL(url)
      withOwn.searchParams.set("options", "-c random_page_cost=2.5")
      expect(yield* on(withOwn.toString())).toBe("2.5")
      withOwn.searchParams.set("options", "-c work_mem=8MB")
      expect(yield* on(withOwn.toString())).toBe("1.1")
    })
  )
})
