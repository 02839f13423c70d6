import { mkdtemp, readFile, rm } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Extractor } from "../../src/extract/Extractor.ts"
import { generateLargeCorpus } from "../fixtures/corpus.ts"
import { options } from "./helpers.ts"

const dirs: Array<string> = []
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

const generate = (count: number) =>
  Effect.promise(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "quarry-large-"))
    dirs.push(dir)
    return { dir, paths: await generateLargeCorpus(dir, count) }
  })

describe("generateLargeCorpus", () => {
  it.layer(Extractor.Default)((it) => {
    it.effect("writes the count asked for, of every kind, spread over sub-directories, each extractable", () =>
      Effect.gen(function* () {
        const { paths } = yield* generate(600)
        expect(paths).toHaveLength(600)
        const extensions = new Set(paths.map((file) => path.extname(file)))
        expect([...extensions].sort()).toEqual([".csv", ".docx", ".eml", ".html", ".json", ".pdf", ".rtf", ".txt"])
        expect(new Set(paths.map((file) => path.dirname(file))).size).toBe(2)
        const extractor = yield* Extractor
        for (const extension of extensions) {
          const file = paths.find((candidate) => candidate.endsWith(extension)) ?? ""
          const document = yield* extractor.extract(file, options)
          expect(document.extractionError, file).toBeUndefined()
          expect(document.content, file).toMatch(/Document \d+: /)
        }
      })
    )

    it.effect("is deterministic and makes every file unique, so ids do not collide", () =>
      Effect.gen(function* () {
        const first = yield* generate(150)
        const second = yield* generate(150)
        const read = (dir: string, file: string) => readFile(path.join(dir, path.relative(first.dir, file)))
        const contents = yield* Effect.promise(() => Promise.all(first.paths.map((file) => read(first.dir, file))))
        const again = yield* Effect.promise(() => Promise.all(first.paths.map((file) => read(second.dir, file))))
        expect(again.map((bytes) => bytes.toString("base64"))).toEqual(contents.map((bytes) => bytes.toString("base64")))
        expect(new Set(contents.map((bytes) => bytes.toString("base64"))).size).toBe(150)
      })
    )
  })
})
