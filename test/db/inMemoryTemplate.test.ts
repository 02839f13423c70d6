import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createInMemory } from "../../src/db/InMemoryTemplate.ts"

const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cache-"))
const templateFolder = path.join(cacheHome, "quarry")
const templates = () => fs.readdirSync(templateFolder).filter((name) => name.endsWith("-initdb.tar"))

const tableNames = async (db: PGlite) =>
  (await db.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
    (row) => row.tablename
  )

describe("in-memory databases start from a cached fresh one", () => {
  const previous = process.env.XDG_CACHE_HOME
  beforeAll(() => {
    process.env.XDG_CACHE_HOME = cacheHome
  })
  afterAll(() => {
    if (previous === undefined) delete process.env.XDG_CACHE_HOME
    else process.env.XDG_CACHE_HOME = previous
    fs.rmSync(cacheHome, { recursive: true, force: true })
  })

  it("keeps the first fresh database's files, private to the user, and loads them next time", async () => {
    const first = await createInMemory({})
    expect(await tableNames(first)).toEqual([])
    await first.close()
    const [template] = templates()
    expect(template).toMatch(/^pglite-\d+\.\d+\.\d+-initdb\.tar$/)
    expect(fs.statSync(templateFolder).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.join(templateFolder, template!)).mode & 0o777).toBe(0o600)

    // A table planted in the cached copy shows that the next database is loaded from it rather than made anew.
    const planted = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(path.join(templateFolder, template!))]) })
    await planted.exec("CREATE TABLE planted (id integer)")
    fs.writeFileSync(path.join(templateFolder, template!), new Uint8Array(await (await planted.dumpDataDir("none")).arrayBuffer()))
    await planted.close()
    const second = await createInMemory({})
    expect(await tableNames(second)).toEqual(["planted"])
    await second.close()
  })

  it("makes a fresh database, and a new copy, when the cached one does not load", async () => {
    const [template] = templates()
    fs.writeFileSync(path.join(templateFolder, template!), "not a tar file")
    const db = await createInMemory({})
    await db.exec("CREATE TABLE works (id integer)")
    expect(await tableNames(db)).toEqual(["works"])
    await db.close()
    expect(fs.statSync(path.join(templateFolder, template!)).size).toBeGreaterThan(1_000_000)
    expect(templates()).toEqual([template])
  })
})
