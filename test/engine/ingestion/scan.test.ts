import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { globToRegExp } from "../../../src/domain/ingest/Walk.ts"
import { Engine } from "../../../src/engine/Engine.ts"
import { files, generateCorpus } from "../../fixtures/corpus.ts"
import { databaseKinds, postgresAvailable, postgresSkipReason } from "../../helpers/databases.ts"
import { clearTasks, testDatabase } from "../helpers.ts"
import { queuedPaths, scan, startIngestionEngine, tempDir } from "./helpers.ts"

const corpusPaths = (dir: string, keys: ReadonlyArray<keyof typeof files>) => keys.map((key) => path.join(dir, files[key])).sort()
const allKeys = Object.keys(files) as Array<keyof typeof files>
const documentKeys = allKeys.filter((key) => key !== "hidden" && key !== "osFile")

/** A corpus in a fresh folder, with an engine running scans; each test scans into its own project. */
const setUp = Effect.gen(function* () {
  yield* clearTasks
  const dir = yield* tempDir
  yield* Effect.promise(() => generateCorpus(dir))
  const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
  return { dir, engine }
})

let projects = 0
const newProject = () => `scan-${++projects}`

describe("globToRegExp", () => {
  const cases: ReadonlyArray<[string, string, boolean]> = [
    ["*.pdf", "report.pdf", true],
    ["*.pdf", "a/report.pdf", false],
    ["**/*.pdf", "a/b/report.pdf", true],
    ["**/*.pdf", "report.pdf", true],
    ["glob:*.{txt,csv}", "table.csv", true],
    ["doc-00?.txt", "doc-001.txt", true],
    ["doc-[!0]*.txt", "doc-1.txt", true],
    ["doc-[!0]*.txt", "doc-0.txt", false],
    ["a.b", "axb", false]
  ]
  for (const [glob, candidate, expected] of cases) {
    it(`${glob} ${expected ? "matches" : "does not match"} ${candidate}`, () => expect(globToRegExp(glob).test(candidate)).toBe(expected))
  }
})

for (const database of databaseKinds) {
  const skip = database === "postgres" && !postgresAvailable
  describe.skipIf(skip)(`Scan task on ${database}${skip ? ` (skipped: ${postgresSkipReason})` : ""}`, () => {
    layer(testDatabase(database), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.scoped("queues every file but hidden and OS files, and answers how many", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const project = newProject()
          const task = yield* scan(engine, dir, project)
          expect(task.state).toBe("DONE")
          expect(task.result).toBe(documentKeys.length)
          expect(task.name).toMatch(/^org\.icij\.datashare\.tasks\.ScanTask@/)
          expect(yield* queuedPaths(project)).toEqual(corpusPaths(dir, documentKeys))
        })
      )

      it.scoped("includes hidden files, then OS files too, only when asked", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const hidden = newProject()
          expect((yield* scan(engine, dir, hidden, { includeHiddenFiles: true })).result).toBe(documentKeys.length + 1)
          expect(yield* queuedPaths(hidden)).toEqual(corpusPaths(dir, [...documentKeys, "hidden"]))
          const everything = newProject()
          expect((yield* scan(engine, dir, everything, { includeHiddenFiles: true, includeOSFiles: true })).result).toBe(allKeys.length)
          // An OS file is skipped even among hidden files: .DS_Store is both.
          const osOnly = newProject()
          expect((yield* scan(engine, dir, osOnly, { includeOSFiles: true })).result).toBe(documentKeys.length)
        })
      )

      it.scoped("keeps files matching includePattern and not excludePattern", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const pdfs = newProject()
          yield* scan(engine, dir, pdfs, { includePattern: "*.pdf" })
          expect(yield* queuedPaths(pdfs)).toEqual(corpusPaths(dir, ["pdf", "corruptPdf"]))
          const notBroken = newProject()
          yield* scan(engine, dir, notBroken, { includePattern: "glob:**/*.{pdf,zip}", excludePattern: "broken/**" })
          expect(yield* queuedPaths(notBroken)).toEqual(corpusPaths(dir, ["pdf", "zip"]))
          const absolute = newProject()
          yield* scan(engine, dir, absolute, { excludePattern: `${dir}/docs/*` })
          expect(yield* queuedPaths(absolute)).toEqual(
            corpusPaths(
              dir,
              documentKeys.filter((key) => !files[key].startsWith("docs/"))
            )
          )
        })
      )

      it.scoped("stops at maxDepth levels below the scanned folder", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const top = path.join(dir, "top.txt")
          yield* Effect.promise(() => fs.writeFile(top, "top level\n"))
          const one = newProject()
          expect((yield* scan(engine, dir, one, { maxDepth: 1 })).result).toBe(1)
          expect(yield* queuedPaths(one)).toEqual([top])
          const two = newProject()
          yield* scan(engine, dir, two, { maxDepth: 2 })
          expect(yield* queuedPaths(two)).toEqual([...corpusPaths(dir, documentKeys), top].sort())
        })
      )

      it.scoped("skips symbolic links unless followSymlinks, and a link loop ends", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const outside = yield* tempDir
          const linked = path.join(outside, "linked.txt")
          yield* Effect.promise(async () => {
            await fs.writeFile(linked, "reached through a link\n")
            await fs.symlink(outside, path.join(dir, "link-dir"))
            await fs.symlink(path.join(dir, files.utf8), path.join(dir, "link-file.txt"))
            await fs.symlink(dir, path.join(dir, "text", "loop"))
          })
          const plain = newProject()
          expect((yield* scan(engine, dir, plain)).result).toBe(documentKeys.length)
          const followed = newProject()
          const task = yield* scan(engine, dir, followed, { followSymlinks: true })
          expect(task.state).toBe("DONE")
          const paths = yield* queuedPaths(followed)
          expect(paths).toEqual(expect.arrayContaining([path.join(dir, "link-dir", "linked.txt"), path.join(dir, "link-file.txt")]))
          expect(paths).toHaveLength(documentKeys.length + 2)
        })
      )

      it.scoped("answers 0 and DONE for a missing folder", () =>
        Effect.gen(function* () {
          const { dir, engine } = yield* setUp
          const project = newProject()
          const task = yield* scan(engine, path.join(dir, "missing"), project)
          expect(task).toMatchObject({ state: "DONE", result: 0 })
          expect(yield* queuedPaths(project)).toEqual([])
        })
      )

      it.scoped("keeps the queue across engine restarts and queues a path once per project", () =>
        Effect.gen(function* () {
          yield* clearTasks
          const dir = yield* tempDir
          yield* Effect.promise(() => generateCorpus(dir))
          const project = newProject()
          const first = yield* Effect.scoped(
            Effect.flatMap(
              Effect.flatMap(startIngestionEngine(), (context) => Effect.provide(Engine, context)),
              (engine) => scan(engine, dir, project)
            )
          )
          expect(first.result).toBe(documentKeys.length)
          // The first engine is closed: a second one finds the queue as it was, and a second scan adds nothing.
          const engine = yield* Effect.provide(Engine, yield* startIngestionEngine())
          expect(yield* queuedPaths(project)).toEqual(corpusPaths(dir, documentKeys))
          expect((yield* scan(engine, dir, project)).result).toBe(documentKeys.length)
          expect(yield* queuedPaths(project)).toEqual(corpusPaths(dir, documentKeys))
        })
      )
    })
  })
}
