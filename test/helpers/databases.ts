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

/** A fresh database on the local server, dropped when the scope closes. */
export const throwawayPostgres = Effect.acquireRelease(
  Effect.gen(function* () {
    const name = `quarry_test_${randomBytes(6).toString("hex")}`
    yield* withAdmin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
    return { name, url: databaseUrl(name) }
  }),
  ({ name }) => withAdmin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(Effect.orDie)
).pipe(Effect.orDie)

/** The two databases every repository and HTTP test runs against. */
export type DatabaseKind = "pglite" | "postgres"
export const databaseKinds: ReadonlyArray<DatabaseKind> = ["pglite", "postgres"]

/** A `--dataSourceUrl` for a kind: an in-memory PGlite, or a throwaway database on the local server. */
export const dataSourceUrlFor = (kind: DatabaseKind) =>
  kind === "pglite" ? Effect.succeed("pglite:memory") : Effect.map(throwawayPostgres, ({ url }) => url)
