import { randomBytes } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Redacted } from "effect"

/** The local PostgreSQL server the tests use besides the embedded database. */
export const postgresAdminUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres"

const withAdmin = <A, E>(use: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* use(sql)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(postgresAdminUrl), maxConnections: 1, connectTimeout: "3 seconds" })))

/** Whether the PostgreSQL server answers; tests that need it are skipped, with this reason, when it does not. */
export const postgresAvailable: boolean = await Effect.runPromise(
  withAdmin((sql) => sql`SELECT 1`).pipe(
    Effect.as(true),
    Effect.catchAllCause(() => Effect.succeed(false))
  )
)

export const postgresSkipReason = `PostgreSQL server not reachable at ${postgresAdminUrl}`

const databaseUrl = (name: string) => {
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const createDatabase = (template: string | undefined) =>
  Effect.gen(function* () {
    const name = `quarry_test_${randomBytes(6).toString("hex")}`
    yield* withAdmin((sql) => sql.unsafe(`CREATE DATABASE ${name}${template === undefined ? "" : ` TEMPLATE ${template}`}`))
    return { name, url: databaseUrl(name) }
  })

const dropDatabase = (name: string) => withAdmin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(Effect.orDie)

/** A fresh database on the local server, without any migration, dropped when the scope closes. */
export const throwawayPostgres = Effect.acquireRelease(createDatabase(undefined), ({ name }) => dropDatabase(name)).pipe(Effect.orDie)

/**
 * An empty database for test/setup/postgresTemplate.ts to migrate, which test databases are then copied from, and its
 * drop. Copies need it without connections: the setup closes its own before the tests start.
 */
export const migratedPostgresTemplate = Effect.map(createDatabase(undefined), ({ name, url }) => ({ name, url, drop: dropDatabase(name) }))

/**
 * A throwaway database with every migration applied: a copy of the run's migrated template, made in a third of the
 * time its migrations took. Outside vitest (benchmarks), or without the template, a fresh one the caller migrates.
 */
export const migratedPostgres = Effect.gen(function* () {
  const template =
    process.env.VITEST_WORKER_ID === undefined ? "" : (yield* Effect.promise(() => import("vitest"))).inject("postgresTemplate")
  return yield* Effect.acquireRelease(createDatabase(template === "" ? undefined : template), ({ name }) => dropDatabase(name))
}).pipe(Effect.orDie)

/** The two databases every repository and HTTP test runs against. */
export type DatabaseKind = "pglite" | "postgres"
export const databaseKinds: ReadonlyArray<DatabaseKind> = ["pglite", "postgres"]

/**
 * A `--dataSourceUrl` for a kind: an in-memory PGlite, or a throwaway database on the local server, both started from
 * a migrated copy where there is one (the migrations then find nothing to apply).
 */
export const dataSourceUrlFor = (kind: DatabaseKind) =>
  kind === "pglite" ? Effect.succeed("pglite:memory") : Effect.map(migratedPostgres, ({ url }) => url)
