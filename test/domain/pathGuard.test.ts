import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { guardPath, isWithin, memberPath } from "../../src/domain/PathGuard.ts"

/** /tmp/x/data (with a folder, a file, a link inside and a link outside), /tmp/x/data2 and /tmp/x/outside. */
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-path-guard-")))
const data = path.join(base, "data")
fs.mkdirSync(path.join(data, "folder"), { recursive: true })
fs.writeFileSync(path.join(data, "folder", "file.txt"), "inside")
fs.mkdirSync(path.join(base, "data2"))
fs.mkdirSync(path.join(base, "outside"))
fs.writeFileSync(path.join(base, "outside", "secret.txt"), "outside")
fs.symlinkSync(path.join(data, "folder"), path.join(data, "inner-link"))
fs.symlinkSync(path.join(base, "outside"), path.join(data, "outer-link"))

afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const follow = { missing: "allowed" } as const
const existing = { missing: "refused" } as const

const refusal = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

describe("PathGuard", () => {
  it("compares whole segments: /data2 is not in /data", () => {
    expect(isWithin(data, path.join(data, "folder"))).toBe(true)
    expect(isWithin(data, data)).toBe(true)
    expect(isWithin(data, path.join(base, "data2"))).toBe(false)
    expect(isWithin(data, path.join(data, "..foo"))).toBe(true)
  })

  it.effect("answers the real path of a path inside", () =>
    Effect.gen(function* () {
      expect(yield* guardPath(data, path.join(data, "folder", "file.txt"), existing)).toBe(path.join(data, "folder", "file.txt"))
      expect(yield* guardPath(data, path.join(data, "folder", "new"), follow)).toBe(path.join(data, "folder", "new"))
    })
  )

  it.effect("refuses a .. escape, an absolute path outside and a sibling folder with a common prefix", () =>
    Effect.gen(function* () {
      expect(yield* refusal(guardPath(data, path.join(data, "..", "outside"), follow))).toBe("PathOutside")
      expect(yield* refusal(guardPath(data, "/etc/passwd", follow))).toBe("PathOutside")
      expect(yield* refusal(guardPath(data, path.join(base, "data2"), follow))).toBe("PathOutside")
    })
  )

  it.effect("refuses a symbolic link leading outside, existing or not behind it", () =>
    Effect.gen(function* () {
      expect(yield* refusal(guardPath(data, path.join(data, "outer-link", "secret.txt"), existing))).toBe("PathOutside")
      expect(yield* refusal(guardPath(data, path.join(data, "outer-link", "missing"), existing))).toBe("PathOutside")
      expect(yield* refusal(guardPath(data, path.join(data, "outer-link", "missing"), follow))).toBe("PathOutside")
    })
  )

  it.effect("follows a symbolic link that stays inside, and tells a missing path inside", () =>
    Effect.gen(function* () {
      expect(yield* guardPath(data, path.join(data, "inner-link", "file.txt"), existing)).toBe(path.join(data, "folder", "file.txt"))
      expect(yield* refusal(guardPath(data, path.join(data, "folder", "missing"), existing))).toBe("PathMissing")
    })
  )

  it("judges archive member names alone, before their files exist", () => {
    expect(memberPath(data, "dist/main.js")).toEqual(Either.right(path.join(data, "dist", "main.js")))
    for (const name of ["../evil.js", "a/../../evil.js", "/etc/passwd", "a\\b.js", "a\0b", "", "./"]) {
      expect(Either.isLeft(memberPath(data, name)), JSON.stringify(name)).toBe(true)
    }
  })
})
