import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { installationDirectory, readBuildInfo } from "../../src/config/BuildInfo.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-build-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const gitIn = (dir: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.org", ...args], { cwd: dir, encoding: "utf8" }).trim()

describe("readBuildInfo", () => {
  it.scoped("reports only the package version outside a git checkout", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "x", version: "9.8.7" }))
      expect(yield* readBuildInfo(dir)).toEqual({ "git.build.version": "9.8.7" })
    })
  )

  it.scoped("never fails, even without a package.json", () =>
    Effect.gen(function* () {
      expect(yield* readBuildInfo(yield* tempDir)).toEqual({ "git.build.version": "unknown" })
    })
  )

  it.scoped("reads the commit, branch, tags and dirtiness of a git checkout", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ version: "1.2.3" }))
      gitIn(dir, "init", "-q", "-b", "release")
      gitIn(dir, "add", "package.json")
      gitIn(dir, "commit", "-q", "-m", "First release", "-m", "with a body")
      gitIn(dir, "tag", "v1.2.3")
      gitIn(dir, "tag", "stable")
      const clean = yield* readBuildInfo(dir)
      expect(clean).toMatchObject({
        "git.build.version": "1.2.3",
        "git.commit.id": gitIn(dir, "rev-parse", "HEAD"),
        "git.commit.id.abbrev": gitIn(dir, "rev-parse", "--short", "HEAD"),
        "git.commit.message.short": "First release",
        "git.branch": "release",
        "git.dirty": "false",
        "git.tags": "stable,v1.2.3"
      })
      expect(Date.parse(clean["git.commit.time"] ?? "")).not.toBeNaN()
      expect(Date.parse(clean["git.build.time"] ?? "")).not.toBeNaN()
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ version: "1.2.4" }))
      expect((yield* readBuildInfo(dir))["git.dirty"]).toBe("true")
    })
  )

  it.effect("reads this installation's package.json", () =>
    Effect.gen(function* () {
      const pkg = JSON.parse(fs.readFileSync(path.join(installationDirectory, "package.json"), "utf8")) as { version: string }
      expect((yield* readBuildInfo(installationDirectory))["git.build.version"]).toBe(pkg.version)
    })
  )
})
