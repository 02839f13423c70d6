import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { gunzipSync } from "node:zlib"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import yazl from "yazl"
import { detectFormat, safeTarget, unpack } from "../../../src/domain/plugin/Unpack.ts"
import { tarGzBytes, zipBytes } from "../../fixtures/binaries.ts"
import { pluginTgz, rawTarGz, zipSlip } from "../../fixtures/pluginArchives.ts"

const roots: Array<string> = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

/** An archive file in a fresh folder, and an empty `content` folder beside it to unpack into. */
const archiveFile = (bytes: Buffer) => {
  const root = path.join(os.tmpdir(), `quarry-unpack-${randomUUID()}`)
  roots.push(root)
  fs.mkdirSync(path.join(root, "content"), { recursive: true })
  fs.writeFileSync(path.join(root, "archive"), bytes)
  return { root, file: path.join(root, "archive"), content: path.join(root, "content") }
}

const limits = { maxBytes: 64 * 1024, maxEntries: 100 }

/** Every file below a folder, as relative paths. */
const filesUnder = (dir: string): ReadonlyArray<string> =>
  fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => fs.statSync(path.join(dir, name)).isFile())
    .sort()

const refusalOf = (exit: Exit.Exit<void, { readonly _tag: string; readonly message: string }>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? { tag: exit.cause.error._tag, message: exit.cause.error.message } : undefined

/** A zip written by yazl, for entries the fixture builder does not make (folders, symbolic links). */
const zipOf = (build: (zip: yazl.ZipFile) => void) => {
  const zip = new yazl.ZipFile()
  build(zip)
  zip.end()
  const chunks: Array<Buffer> = []
  return new Promise<Buffer>((resolve) => {
    zip.outputStream.on("data", (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)))
  })
}

const symlinkZip = () => zipOf((zip) => zip.addBuffer(Buffer.from("/etc"), "link", { mode: 0o120777 }))

describe("safeTarget", () => {
  it("keeps names below the root and refuses every way out of it", () => {
    const root = "/srv/plugins/.installing-x/content"
    expect(safeTarget(root, "dist/main.js")).toBe(`${root}/dist/main.js`)
    expect(safeTarget(root, "./a/./b.js")).toBe(`${root}/a/b.js`)
    for (const name of ["../x.js", "a/../../x.js", "/etc/passwd", "a\\..\\..\\x.js", "a\0.js", "", "a/.."]) {
      expect(safeTarget(root, name), JSON.stringify(name)).toBeUndefined()
    }
  })
})

describe("detectFormat", () => {
  it.effect("tells zip, tar.gz and tar from their first bytes, and nothing else", () =>
    Effect.gen(function* () {
      const tarGz = yield* Effect.promise(() => tarGzBytes([{ name: "a.js", content: "1" }]))
      expect(detectFormat(yield* Effect.promise(() => zipBytes([{ name: "a.js", content: "1" }])))).toBe("zip")
      expect(detectFormat(tarGz)).toBe("tar.gz")
      expect(detectFormat(gunzipSync(tarGz))).toBe("tar")
      expect(detectFormat(Buffer.from("<html>not an archive</html>"))).toBeUndefined()
    })
  )
})

describe("unpack", () => {
  it.effect("unpacks a tar.gz and a zip, with their folders", () =>
    Effect.gen(function* () {
      const tgz = archiveFile(yield* Effect.promise(() => pluginTgz("1.0.0")))
      yield* unpack("u", tgz.file, tgz.content, limits)
      expect(filesUnder(tgz.content)).toEqual(["package/dist/main.js", "package/dist/style.css", "package/package.json"])
      const zip = archiveFile(
        yield* Effect.promise(() =>
          zipOf((zip) => {
            zip.addEmptyDirectory("top/")
            zip.addEmptyDirectory("top/empty/")
            zip.addBuffer(Buffer.from("b"), "top/a/b.js")
          })
        )
      )
      yield* unpack("u", zip.file, zip.content, limits)
      expect(filesUnder(zip.content)).toEqual(["top/a/b.js"])
      expect(fs.statSync(path.join(zip.content, "top/empty")).isDirectory()).toBe(true)
      expect(fs.readFileSync(path.join(zip.content, "top/a/b.js"), "utf8")).toBe("b")
    })
  )

  it.effect("refuses zip-slip entries in zip and tar.gz without writing outside the root", () =>
    Effect.gen(function* () {
      const zip = archiveFile(yield* Effect.promise(zipSlip))
      const zipExit = yield* Effect.exit(unpack("u", zip.file, zip.content, limits))
      expect(refusalOf(zipExit)).toEqual({
        tag: "DeliverableRefused",
        message: 'refused u: the entry "../escaped.js" would be written outside the plugin directory'
      })
      expect(fs.existsSync(path.join(zip.root, "escaped.js"))).toBe(false)
      for (const name of ["/abs.js", "a/../../up.js", "a\\..\\..\\back.js"]) {
        const tar = archiveFile(yield* Effect.promise(() => rawTarGz([{ name, content: "x" }])))
        const exit = yield* Effect.exit(unpack("u", tar.file, tar.content, limits))
        expect(refusalOf(exit)?.message, name).toBe(
          `refused u: the entry ${JSON.stringify(name)} would be written outside the plugin directory`
        )
        expect(fs.readdirSync(tar.root).sort(), name).toEqual(["archive", "content"])
      }
    })
  )

  it.effect("refuses links, whose targets could lead a later entry out of the root", () =>
    Effect.gen(function* () {
      const tar = archiveFile(
        yield* Effect.promise(() =>
          rawTarGz([
            { name: "escape", type: "symlink", linkname: "/tmp" },
            { name: "escape/x.js", content: "x" }
          ])
        )
      )
      expect(refusalOf(yield* Effect.exit(unpack("u", tar.file, tar.content, limits)))?.message).toBe(
        'refused u: the entry "escape" is a link'
      )
      expect(fs.readdirSync(tar.content)).toEqual([])
      const zip = archiveFile(yield* Effect.promise(symlinkZip))
      expect(refusalOf(yield* Effect.exit(unpack("u", zip.file, zip.content, limits)))?.message).toBe(
        'refused u: the entry "link" is a symbolic link'
      )
    })
  )

  it.effect("refuses archives over the size or entry limits, and files that are not archives", () =>
    Effect.gen(function* () {
      const big = archiveFile(yield* Effect.promise(() => tarGzBytes([{ name: "big.js", content: "x".repeat(100_000) }])))
      expect(refusalOf(yield* Effect.exit(unpack("u", big.file, big.content, limits)))?.message).toBe(
        "refused u: unpacks to more than 65536 bytes (deliverableMaxSize)"
      )
      const many = archiveFile(yield* Effect.promise(() => zipBytes(["a", "b", "c"].map((name) => ({ name, content: name })))))
      expect(refusalOf(yield* Effect.exit(unpack("u", many.file, many.content, { maxBytes: 1000, maxEntries: 2 })))?.message).toBe(
        "refused u: more than 2 entries"
      )
      const text = archiveFile(Buffer.from("plain text"))
      expect(refusalOf(yield* Effect.exit(unpack("u", text.file, text.content, limits)))?.message).toBe(
        "refused u: not a zip, tar or tar.gz archive"
      )
      const corrupt = archiveFile(Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.alloc(64, 7)]))
      expect(refusalOf(yield* Effect.exit(unpack("u", corrupt.file, corrupt.content, limits)))?.message).toMatch(
        /^refused u: not a readable tar archive: /
      )
    })
  )
})
