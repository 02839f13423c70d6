import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseProperties } from "../../src/config/Properties.ts"
import { publicSettings, resolveSettings, updateSettings } from "../../src/config/Settings.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-settings-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const settingsWith = (dir: string, cli: Readonly<Record<string, string>>, env: Readonly<Record<string, string>> = {}) =>
  resolveSettings({ env, cli, defaultSettingsFile: path.join(dir, "default.properties") })

describe("publicSettings", () => {
  it.scoped("drops every setting whose name contains Address, Secret, Url or Key, and adds pathSeparator", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const settings = yield* settingsWith(
        dir,
        { dataSourceUrl: "pglite:memory", elasticsearchAddress: "http://es:9200", rootHost: "http://quarry" },
        { DS_DOCKER_OAUTH_CLIENT_SECRET: "s3cret", DS_DOCKER_API_KEY: "k", DS_DOCKER_MESSAGE_BUS_ADDRESS: "redis://bus" }
      )
      const values = yield* publicSettings(settings)
      expect(Object.keys(values).filter((name) => /Address|Secret|Url|Key/.test(name))).toEqual([])
      expect(JSON.stringify(values)).not.toContain("s3cret")
      expect(values).toMatchObject({ mode: "LOCAL", rootHost: "http://quarry", tcpListenPort: "8080", pathSeparator: path.sep })
      expect(Object.values(values).every((value) => typeof value === "string")).toBe(true)
    })
  )
})

describe("updateSettings", () => {
  it.scoped("saves the changes to the settings file, keeps its other entries, and changes the running settings", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "given.properties")
      fs.writeFileSync(file, "# mine\nplatform=staging\nscrollSize=10\n")
      const settings = yield* settingsWith(dir, { settings: file, tcpListenPort: "9000" })
      yield* updateSettings(settings, { scrollSize: "500", previewHost: "http://preview" })
      expect(parseProperties(fs.readFileSync(file, "utf8"))).toEqual({
        platform: "staging",
        scrollSize: "500",
        previewHost: "http://preview"
      })
      expect(yield* publicSettings(settings)).toMatchObject({ scrollSize: "500", previewHost: "http://preview", tcpListenPort: "9000" })
    })
  )

  it.scoped("creates the default settings file and its folder when they do not exist", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const settings = yield* resolveSettings({ env: {}, cli: {}, defaultSettingsFile: path.join(dir, "new", "quarry.properties") })
      yield* updateSettings(settings, { defaultProject: "patched" })
      expect(fs.readFileSync(path.join(dir, "new", "quarry.properties"), "utf8")).toBe("defaultProject=patched\n")
    })
  )

  it.scoped("serialises concurrent updates so that none is lost", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const settings = yield* settingsWith(dir, {})
      yield* Effect.all(
        Array.from({ length: 10 }, (_, index) => updateSettings(settings, { [`custom${index}`]: String(index) })),
        { concurrency: "unbounded" }
      )
      const saved = parseProperties(fs.readFileSync(settings.writableFile, "utf8"))
      expect(Object.keys(saved).sort()).toEqual(Array.from({ length: 10 }, (_, index) => `custom${index}`).sort())
    })
  )

  it.scoped("rejects a bad value of a known option and changes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const settings = yield* settingsWith(dir, {})
      const error = yield* Effect.flip(updateSettings(settings, { tcpListenPort: "70000", scrollSize: "5" }))
      expect(error._tag).toBe("InvalidSetting")
      expect(error.message).toContain("--tcpListenPort")
      expect(fs.existsSync(settings.writableFile)).toBe(false)
      expect((yield* publicSettings(settings)).scrollSize).toBe("1000")
    })
  )

  it.scoped("fails with SettingsFileNotWritable when the file cannot be written, and changes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "given.properties")
      fs.writeFileSync(file, "platform=staging\n")
      const settings = yield* settingsWith(dir, { settings: file })
      // A directory where the file was: no rename can replace it (permission bits would not stop root).
      fs.rmSync(file)
      fs.mkdirSync(file)
      const error = yield* Effect.flip(updateSettings(settings, { scrollSize: "500" }))
      expect(error._tag).toBe("SettingsFileNotWritable")
      expect((yield* publicSettings(settings)).scrollSize).toBe("1000")
      expect(fs.readdirSync(dir)).toEqual(["given.properties"])
    })
  )
})
