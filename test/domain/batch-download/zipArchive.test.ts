import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { archiveName, isArchiveName, partialFile } from "../../../src/domain/batch-download/BatchDownload.ts"
import { openZipArchive } from "../../../src/domain/batch-download/ZipArchive.ts"
import { readZip } from "../../helpers/zips.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-zip-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A file of random bytes (incompressible, so writing it takes a while). */
const randomFile = (name: string, size: number) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, randomBytes(size))
  return file
}

describe("batch download archive names", () => {
  it("names an archive after the user and the UTC date-time, ':' written '_'", () => {
    const name = archiveName("local", new Date("2021-07-07T14:53:47.123Z"))
    expect(name).toBe("archive_local_2021-07-07T14_53_47.123Z[GMT].zip")
    expect(isArchiveName(name)).toBe(true)
    expect(isArchiveName(path.basename(partialFile(path.join(dir, name))))).toBe(true)
    expect(isArchiveName("notes.zip")).toBe(false)
    expect(archiveName("a/b", new Date(0))).not.toContain("/")
  })
})

describe("zip archives", () => {
  it.effect("streams files and bytes into the zip and renames it when finished", () =>
    Effect.gen(function* () {
      const big = randomFile("big.bin", 3 * 1024 ** 2)
      const zip = path.join(dir, "archive_test_finished.zip")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const archive = yield* openZipArchive(zip, null)
          yield* archive.add("data/big.bin", { _tag: "File", path: big })
          yield* archive.add("small.txt", { _tag: "Bytes", bytes: Buffer.from("small") })
          expect(fs.existsSync(zip)).toBe(false)
          yield* archive.finish
        })
      )
      expect(fs.existsSync(partialFile(zip))).toBe(false)
      const entries = yield* readZip(fs.readFileSync(zip)).pipe(Effect.orDie)
      expect(entries.map((entry) => [entry.name, entry.size])).toEqual([
        ["data/big.bin", 3 * 1024 ** 2],
        ["small.txt", 5]
      ])
      expect(entries[0]!.bytes.equals(fs.readFileSync(big))).toBe(true)
    })
  )

  it.effect("an archive closed before it is finished leaves no file at all", () =>
    Effect.gen(function* () {
      const zip = path.join(dir, "archive_test_abandoned.zip")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const archive = yield* openZipArchive(zip, "0123456789abcdef")
          yield* archive.add("small.txt", { _tag: "Bytes", bytes: Buffer.from("small") })
          expect(fs.existsSync(partialFile(zip))).toBe(true)
        })
      )
      expect(fs.existsSync(zip)).toBe(false)
      expect(fs.existsSync(partialFile(zip))).toBe(false)
    })
  )

  it.effect("an archive interrupted while a file is added (a stopped download) leaves no file at all", () =>
    Effect.gen(function* () {
      const big = randomFile("bigger.bin", 16 * 1024 ** 2)
      const zip = path.join(dir, "archive_test_stopped.zip")
      const started = yield* Effect.makeLatch(false)
      const writing = yield* Effect.scoped(
        Effect.gen(function* () {
          const archive = yield* openZipArchive(zip, null)
          yield* started.open
          yield* archive.add("bigger.bin", { _tag: "File", path: big })
          yield* archive.finish
        })
      ).pipe(Effect.fork)
      yield* started.await
      yield* Fiber.interrupt(writing)
      expect(fs.existsSync(zip)).toBe(false)
      expect(fs.existsSync(partialFile(zip))).toBe(false)
    })
  )

  // The temporary file is opened asynchronously: a stop that comes before the open completes must still remove it.
  it.live("an archive stopped right after it is opened leaves no file, however soon the stop comes (50 tries)", () =>
    Effect.gen(function* () {
      const left: Array<string> = []
      for (let attempt = 0; attempt < 50; attempt++) {
        const zip = path.join(dir, `archive_test_stopped_early_${attempt}.zip`)
        const opened = yield* Effect.makeLatch(false)
        const writing = yield* Effect.scoped(
          Effect.gen(function* () {
            yield* openZipArchive(zip, null)
            yield* opened.open
            yield* Effect.never
          })
        ).pipe(Effect.fork)
        yield* opened.await
        yield* Fiber.interrupt(writing)
        // Long enough for an open still pending at the interruption to complete.
        yield* Effect.sleep("5 millis")
        if (fs.existsSync(partialFile(zip))) left.push(zip)
      }
      expect(left).toEqual([])
    })
  )
})
