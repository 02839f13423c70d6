import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { SqlClient } from "@effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseLayer } from "../../src/db/Database.ts"
import { openEmbedded } from "../../src/db/EmbeddedTemplates.ts"
import { listMigrationFiles, migrationsFingerprint } from "../../src/db/MigrationFiles.ts"
import { runMigrations } from "../../src/db/Migrator.ts"

const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cache-"))
const directories = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-directories-"))
const templateFolder = path.join(cacheHome, "quarry")
const templates = (kind: "initdb" | "migrated") => fs.readdirSync(templateFolder).filter((name) => name.includes(`-${kind}`))
const templatePath = (kind: "initdb" | "migrated") => path.join(templateFolder, templates(kind)[0]!)
/** The migrated copy's name: the fresh copy's, with the fingerprint of the migration files. */
const migratedName = Effect.map(Effect.promise(migrationsFingerprint), (fingerprint) =>
  templates("initdb")[0]!.replace("-initdb.tar", `-migrated-${fingerprint}.tar`)
)

const tableNames = async (db: PGlite) =>
  (await db.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
    (row) => row.tablename
  )

const everyMigration = Effect.map(Effect.promise(listMigrationFiles), (migrations) => migrations.map((migration) => migration.id))

/** Opens a database as the server does (`pglite:memory` or `pglite:<dir>`), migrates it, and answers what was applied. */
const migrate = (location: string) =>
  Effect.gen(function* () {
    const applied = yield* runMigrations()
    const sql = yield* SqlClient.SqlClient
    const recorded = yield* sql<{ id: number }>`SELECT id FROM quarry_migrations ORDER BY id`
    return { applied, recorded: recorded.map((row) => row.id) }
  }).pipe(Effect.provide(databaseLayer(`pglite:${location}`)), Effect.scoped, Effect.orDie)

describe("new embedded databases start from cached copies", () => {
  const previous = process.env.XDG_CACHE_HOME
  beforeAll(() => {
    // The database's thread takes its environment from this one when it starts.
    process.env.XDG_CACHE_HOME = cacheHome
  })
  afterAll(() => {
    if (previous === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = previous
    fs.rmSync(cacheHome, { recursive: true, force: true })
    fs.rmSync(directories, { recursive: true, force: true })
  })

  it("keeps the first fresh database's files, private to the user, and loads them next time", async () => {
    const fingerprint = await migrationsFingerprint()
    const first = await openEmbedded({}, undefined, fingerprint)
    expect(first.mayBecomeTemplate).toBe(true)
    expect(await tableNames(first.db)).toEqual([])
    await first.db.close()
    expect(templates("initdb")).toEqual([expect.stringMatching(/^pglite-\d+\.\d+\.\d+-initdb\.tar$/)])
    expect(fs.statSync(templateFolder).mode & 0o777).toBe(0o700)
    expect(fs.statSync(templatePath("initdb")).mode & 0o777).toBe(0o600)

    // A table planted in the cached copy shows that the next database is loaded from it rather than made anew.
    const planted = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(templatePath("initdb"))]) })
    await planted.exec("CREATE TABLE planted (id integer)")
    const withTable = new Uint8Array(await (await planted.dumpDataDir("none")).arrayBuffer())
    await planted.close()
    const clean = fs.readFileSync(templatePath("initdb"))
    fs.writeFileSync(templatePath("initdb"), withTable)
    const second = await openEmbedded({}, undefined, fingerprint)
    expect(await tableNames(second.db)).toEqual(["planted"])
    await second.db.close()
    fs.writeFileSync(templatePath("initdb"), clean)
  })

  it.effect("migrates a new in-memory database from nothing once, then starts the next ones migrated", () =>
    Effect.gen(function* () {
      const every = yield* everyMigration
      expect(templates("migrated")).toEqual([])
      expect(yield* migrate("memory")).toEqual({ applied: every, recorded: every })
      expect(templates("migrated")).toEqual([yield* migratedName])
      expect(fs.statSync(templatePath("migrated")).mode & 0o777).toBe(0o600)
      expect(yield* migrate("memory")).toEqual({ applied: [], recorded: every })
    })
  )

  it.effect("starts a new directory from the migrated copy, opens it as it is next time, and makes no copy of it", () =>
    Effect.gen(function* () {
      const every = yield* everyMigration
      const directory = path.join(directories, "new")
      expect(yield* migrate(directory)).toEqual({ applied: [], recorded: every })
      expect(fs.existsSync(path.join(directory, "PG_VERSION"))).toBe(true)
      expect(yield* migrate(directory)).toEqual({ applied: [], recorded: every })

      // Without the migrated copy a new directory is migrated from nothing, and its files are not kept: a directory
      // holds its lock file, which names its own process.
      fs.rmSync(templatePath("migrated"))
      expect(yield* migrate(path.join(directories, "unmigrated"))).toEqual({ applied: every, recorded: every })
      expect(templates("migrated")).toEqual([])
    })
  )

  it.effect("cleans a new directory after a migrated copy that does not load, and migrates it from nothing", () =>
    Effect.gen(function* () {
      const every = yield* everyMigration
      // A copy cut short, as a full disk would leave it, without the configuration files PGlite's copies end with: PGlite
      // writes the rest into the directory, PG_VERSION included, then fails to start.
      expect(yield* migrate("memory")).toEqual({ applied: every, recorded: every })
      const copy = fs.readFileSync(templatePath("migrated"))
      fs.writeFileSync(templatePath("migrated"), copy.subarray(0, copy.length - 40_000))
      const directory = path.join(directories, "after-a-bad-copy")
      expect(yield* migrate(directory)).toEqual({ applied: every, recorded: every })
    })
  )

  it("makes a fresh database, and a new copy, when the cached one does not load", async () => {
    fs.writeFileSync(templatePath("initdb"), "not a tar file")
    const { db } = await openEmbedded({}, undefined, await migrationsFingerprint())
    await db.exec("CREATE TABLE works (id integer)")
    expect(await tableNames(db)).toEqual(["works"])
    await db.close()
    expect(fs.statSync(templatePath("initdb")).size).toBeGreaterThan(1_000_000)
    expect(templates("initdb")).toHaveLength(1)
  })
})
