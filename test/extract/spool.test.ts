import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Readable } from "node:stream"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { fileSource, readOnce, sourceSize, spool } from "../../src/extract/Source.ts"
import { eventually } from "../engine/helpers.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-spool-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A slow stream of `chunks` 16 KiB chunks, one every 5 ms, counting how many were asked for. */
const slowInput = (chunks: number) => {
  const stream = Object.assign(
    new Readable({
      read() {
        stream.reads += 1
        setTimeout(() => this.push(stream.reads > chunks ? null : Buffer.alloc(16 * 1024, 1)), 5)
      }
    }),
    { reads: 0 }
  )
  return stream
}

describe("spooling a stream to a temporary file", () => {
  it.live("copies the whole stream and gives its size", () =>
    Effect.gen(function* () {
      const source = yield* spool(slowInput(4), dir, [])
      expect(sourceSize(source)).toBe(4 * 16 * 1024)
      expect(source._tag === "File" && fs.statSync(source.path).size).toBe(4 * 16 * 1024)
    })
  )

  it.live("an interrupted copy stops reading its input (an archive member of a stopped task)", () =>
    Effect.gen(function* () {
      const input = slowInput(1_000)
      const copying = yield* Effect.fork(spool(input, dir, []))
      yield* eventually(
        Effect.sync(() => input.reads),
        (reads) => reads >= 5
      )
      yield* Fiber.interrupt(copying)
      yield* eventually(
        Effect.sync(() => input.destroyed),
        (destroyed) => destroyed
      )
      const reads = input.reads
      yield* Effect.sleep("100 millis")
      expect(input.reads).toBe(reads)
      // Stopped, not run to its end: far fewer than the 1 000 chunks were read.
      expect(reads).toBeLessThan(100)
    })
  )
})

describe("reading a file once", () => {
  it.effect("a file no larger than what its parser reads whole is read into memory, path kept; a larger one stays on disk", () =>
    Effect.gen(function* () {
      const file = path.join(dir, "once.bin")
      const bytes = Buffer.from(Array.from({ length: 3_000 }, (_, i) => i % 251))
      fs.writeFileSync(file, bytes)
      const inMemory = yield* readOnce(fileSource(file, bytes.byteLength), bytes.byteLength)
      expect(inMemory._tag).toBe("Bytes")
      expect(inMemory._tag === "Bytes" && Buffer.from(inMemory.bytes).equals(bytes)).toBe(true)
      expect(inMemory._tag === "Bytes" && inMemory.path).toBe(file)
      const onDisk = yield* readOnce(fileSource(file, bytes.byteLength), bytes.byteLength - 1)
      expect(onDisk).toEqual(fileSource(file, bytes.byteLength))
    })
  )
})
