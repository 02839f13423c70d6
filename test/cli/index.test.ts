import * as fs from "node:fs"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type IndexProgress, parseStages, progressBar, progressText } from "../../src/cli/IndexCommand.ts"
import { isolatedHome, runQuarry } from "./quarryProcess.ts"

/** A folder of three small text files, one of them in a sub-folder. */
const fixtureFolder = (home: string) => {
  const dataDir = path.join(home, "documents")
  fs.mkdirSync(path.join(dataDir, "letters"), { recursive: true })
  fs.writeFileSync(path.join(dataDir, "memo.txt"), "The board approved the transfer of the funds to the trust in Jersey.\n")
  fs.writeFileSync(path.join(dataDir, "notes.txt"), "Ocean Holdings paid the invoice from its account in Geneva.\n")
  fs.writeFileSync(path.join(dataDir, "letters", "letter.txt"), "Dear Maria, the shipping registry lists 42 vessels.\n")
  return dataDir
}

/** The paths of the project's documents, read from the embedded database the process left behind. */
const indexedPaths = (dataDirectory: string, project: string) =>
  Effect.promise(async () => {
    const db = await PGlite.create({ dataDir: dataDirectory, extensions: { pg_trgm } })
    try {
      const result = await db.query<{ path: string }>("SELECT path FROM documents WHERE project = $1 ORDER BY path", [project])
      return result.rows.map((row) => row.path)
    } finally {
      await db.close()
    }
  })

describe("quarry --mode CLI", () => {
  it.scoped(
    "scans and indexes a folder into the embedded database, prints its progress and exits 0",
    () =>
      Effect.gen(function* () {
        const home = yield* isolatedHome
        const dataDir = fixtureFolder(home)
        const database = path.join(home, "db")
        const run = yield* runQuarry(
          [
            "--mode",
            "CLI",
            "--stages",
            "SCAN,INDEX",
            "--dataDir",
            dataDir,
            "--defaultProject",
            "cli-project",
            "--dataSourceUrl",
            `pglite:${database}`
          ],
          home
        )
        expect(run.stderr).toBe("")
        expect(run.code).toBe(0)
        expect(run.stdout).toContain(`scan: 3 files queued from ${dataDir}`)
        expect(run.stdout).toMatch(/index: 3 files \([\d.]+ MB\) indexed into project cli-project: [\d.]+ files\/s, [\d.]+ MB\/s/)
        // Not a terminal: plain lines, no bar redrawn in place.
        expect(run.stdout).not.toContain("\r")
        expect(yield* indexedPaths(database, "cli-project")).toEqual(
          ["letters/letter.txt", "memo.txt", "notes.txt"].map((file) => path.join(dataDir, file))
        )
      }),
    // A process start, PGlite's creation and its migrations: seconds, and more on a busy machine.
    120_000
  )

  it.scoped(
    "fails with one clear line and a non-zero status on a missing folder, before creating the database",
    () =>
      Effect.gen(function* () {
        const home = yield* isolatedHome
        const missing = path.join(home, "no-such-folder")
        const run = yield* runQuarry(["--mode", "CLI", "--stages", "SCAN,INDEX", "--dataDir", missing], home)
        expect(run.code).not.toBe(0)
        expect(run.code).not.toBeNull()
        expect(run.stderr.trim()).toBe(`quarry: the data folder ${missing} does not exist or is not a folder (--dataDir)`)
        expect(run.stdout).toBe("")
        expect(fs.existsSync(path.join(home, ".local", "share", "quarry", "db"))).toBe(false)
      }),
    120_000
  )
})

describe("CLI mode's command line and progress", () => {
  it.effect("takes the stages it runs, in any case, and names them when one is unknown or none is given", () =>
    Effect.gen(function* () {
      expect(yield* parseStages("SCAN,INDEX")).toEqual(["SCAN", "INDEX"])
      expect(yield* parseStages("index")).toEqual(["INDEX"])
      expect((yield* Effect.flip(parseStages("SCAN,NLP"))).message).toBe("unknown stage NLP in --stages; CLI mode runs SCAN, INDEX")
      expect((yield* Effect.flip(parseStages(undefined))).message).toContain("--stages")
    })
  )

  it("shows files, files/s, MB/s and the time left once the scan is over", () => {
    const progress: IndexProgress = {
      rate: { files: 250, bytes: 0, filesPerSecond: 50, megabytesPerSecond: 1.5 },
      total: 1000,
      scanning: false
    }
    expect(progressText(progress)).toBe("250/1000 files  50 files/s  1.5 MB/s  ETA 15s")
    expect(progressText({ ...progress, scanning: true })).toBe("250/1000 files  50 files/s  1.5 MB/s  scanning")
    expect(progressText({ ...progress, total: 10_250 })).toBe("250/10250 files  50 files/s  1.5 MB/s  ETA 3m20s")
    expect(progressBar(progress, 8)).toBe("[##......] 250/1000 files  50 files/s  1.5 MB/s  ETA 15s")
  })
})
