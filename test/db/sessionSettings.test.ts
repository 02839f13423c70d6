import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { postgresAvailable, postgresSkipReason, throwawayPostgres } from "../helpers/databases.ts"

const settings = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ randomPageCost: string; workMem: string; jit: string }>`
    SELECT current_setting('random_page_cost') AS "randomPageCost", current_setting('work_mem') AS "workMem", current_setting('jit') AS jit`
).pipe(Effect.map((rows) => rows[0]))

describe("session settings on the embedded database", () => {
  it.scoped("its one session plans for cached data, keeps a search's matches in memory and compiles no statement", () =>
    Effect.gen(function* () {
      expect(yield* settings).toEqual({ randomPageCost: "1.1", workMem: "32MB", jit: "off" })
    }).pipe(Effect.provide(databaseLayer("pglite:memory")))
  )
})

describe.skipIf(!postgresAvailable)(`session settings on PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  it.scoped(
    "connections plan for cached data, keep a search's matches in memory and compile no statement, and the URL's own options still win",
    () =>
      Effect.gen(function* () {
        const { url } = yield* throwawayPostgres
        const on = (dataSourceUrl: string) => settings.pipe(Effect.provide(databaseLayer(dataSourceUrl)))
        expect(yield* on(url)).toEqual({ randomPageCost: "1.1", workMem: "32MB", jit: "off" })
        const withOwn = new URL(url)
        withOwn.searchParams.set("options", "-c random_page_cost=2.5")
        expect(yield* on(withOwn.toString())).toEqual({ randomPageCost: "2.5", workMem: "32MB", jit: "off" })
        withOwn.searchParams.set("options", "-c work_mem=8MB")
        expect(yield* on(withOwn.toString())).toEqual({ randomPageCost: "1.1", workMem: "8MB", jit: "off" })
      })
  )
})

describe.skipIf(!postgresAvailable)(`connections to PostgreSQL${postgresAvailable ? "" : ` (skipped: ${postgresSkipReason})`}`, () => {
  // The pool's default closes a connection idle for 10 s: the next statement then opened a new session, whose first
  // plans read the catalogs again.
  it.live(
    "stay open while idle, so that a search after a pause runs in a session whose caches are warm",
    () =>
      Effect.gen(function* () {
        const { url } = yield* throwawayPostgres
        const session = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`).pipe(
          Effect.map((rows) => rows[0]!.pid)
        )
        const [before, after] = yield* Effect.all([session, Effect.zipRight(Effect.sleep("11 seconds"), session)]).pipe(
          Effect.provide(databaseLayer(url))
        )
        expect(after).toBe(before)
      }).pipe(Effect.scoped),
    30_000
  )
})
