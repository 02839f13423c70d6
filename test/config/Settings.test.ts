import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultValues } from "../../src/config/Options.ts"
import { envNameToOption, resolveSettings, type SettingsSources } from "../../src/config/Settings.ts"

/** A fresh folder, removed when the test ends. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "quarry-settings-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const writeFile = (file: string, text: string) => {
  fs.writeFileSync(file, text)
  return file
}

/** Sources where nothing is set: no env, no CLI, and a default settings file that does not exist. */
const sourcesIn = (dir: string, overrides: Partial<SettingsSources> = {}): SettingsSources => ({
  env: {},
  cli: {},
  defaultSettingsFile: path.join(dir, "absent-default.properties"),
  ...overrides
})

describe("envNameToOption", () => {
  it("converts DS_DOCKER_ upper snake case to the option's camel case", () => {
    expect(envNameToOption("DS_DOCKER_ELASTICSEARCH_ADDRESS")).toBe("elasticsearchAddress")
    expect(envNameToOption("DS_DOCKER_TCP_LISTEN_PORT")).toBe("tcpListenPort")
    expect(envNameToOption("DS_DOCKER_MODE")).toBe("mode")
    expect(envNameToOption("DS_DOCKER_DATA_SOURCE_URL")).toBe("dataSourceUrl")
    expect(envNameToOption("DS_DOCKER_BATCH_DOWNLOAD_MAX_NB_FILES")).toBe("batchDownloadMaxNbFiles")
  })
})

describe("resolveSettings precedence", () => {
  it.scoped("uses the defaults when nothing is given", () =>
    Effect.gen(function* () {
      const settings = yield* resolveSettings(sourcesIn(yield* tempDir))
      expect(settings.mode).toBe("LOCAL")
      expect(settings.tcpListenPort).toBe(8080)
      expect(settings.bind).toBe("127.0.0.1")
      expect(settings.defaultProject).toBe("local-datashare")
      expect(settings.defaultUserName).toBe("local")
      expect(settings.dataDir).toBe(path.join(os.homedir(), "Datashare"))
      expect(settings.dataSourceUrl).toBe(`pglite:${path.join(os.homedir(), ".local", "share", "quarry", "db")}`)
      expect(settings.elasticsearchAddress).toBeUndefined()
      expect(settings.values).toMatchObject(defaultValues)
    })
  )

  it.scoped("command-line options beat defaults", () =>
    Effect.gen(function* () {
      const settings = yield* resolveSettings(sourcesIn(yield* tempDir, { cli: { tcpListenPort: "9001", mode: "SERVER" } }))
      expect(settings.tcpListenPort).toBe(9001)
      expect(settings.mode).toBe("SERVER")
    })
  )

  it.scoped("the default settings file beats command-line options", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const defaultSettingsFile = writeFile(path.join(dir, "default.properties"), "tcpListenPort=9002\n")
      const settings = yield* resolveSettings(sourcesIn(dir, { cli: { tcpListenPort: "9001", bind: "0.0.0.0" }, defaultSettingsFile }))
      expect(settings.tcpListenPort).toBe(9002)
      expect(settings.bind).toBe("0.0.0.0")
    })
  )

  it.scoped("the --settings file beats the default settings file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const defaultSettingsFile = writeFile(path.join(dir, "default.properties"), "tcpListenPort=9002\ndefaultProject=from-default\n")
      const given = writeFile(path.join(dir, "given.properties"), "tcpListenPort=9003\n")
      const settings = yield* resolveSettings(sourcesIn(dir, { cli: { settings: given, tcpListenPort: "9001" }, defaultSettingsFile }))
      expect(settings.tcpListenPort).toBe(9003)
      expect(settings.defaultProject).toBe("from-default")
      expect(settings.values.settings).toBe(given)
      expect(settings.writableFile).toBe(given)
    })
  )

  it.scoped("DS_DOCKER_ variables beat the --settings file, and other variables are ignored", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const given = writeFile(path.join(dir, "given.properties"), "tcpListenPort=9003\nmode=LOCAL\n")
      const settings = yield* resolveSettings(
        sourcesIn(dir, {
          cli: { settings: given },
          env: { DS_DOCKER_TCP_LISTEN_PORT: "9004", DS_DOCKER_ELASTICSEARCH_ADDRESS: "http://es:9200", MODE: "SERVER", HOME: "/x" }
        })
      )
      expect(settings.tcpListenPort).toBe(9004)
      expect(settings.elasticsearchAddress).toBe("http://es:9200")
      expect(settings.mode).toBe("LOCAL")
      expect(settings.values.HOME).toBeUndefined()
    })
  )

  it.scoped("DS_DOCKER_SETTINGS names the settings file and beats --settings", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const fromCli = writeFile(path.join(dir, "cli.properties"), "defaultProject=cli-file\n")
      const fromEnv = writeFile(path.join(dir, "env.properties"), "defaultProject=env-file\n")
      const settings = yield* resolveSettings(sourcesIn(dir, { cli: { settings: fromCli }, env: { DS_DOCKER_SETTINGS: fromEnv } }))
      expect(settings.defaultProject).toBe("env-file")
      expect(settings.writableFile).toBe(fromEnv)
    })
  )

  it.scoped("keeps settings Quarry does not know, from files and variables", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const given = writeFile(path.join(dir, "given.properties"), "previewHost=http://preview\n")
      const settings = yield* resolveSettings(sourcesIn(dir, { cli: { settings: given }, env: { DS_DOCKER_FRONT_HOST: "front" } }))
      expect(settings.values.previewHost).toBe("http://preview")
      expect(settings.values.frontHost).toBe("front")
    })
  )

  it.scoped("makes paths absolute, expanding ~ and resolving relative ones", () =>
    Effect.gen(function* () {
      const settings = yield* resolveSettings(
        sourcesIn(yield* tempDir, { cli: { dataDir: "~/docs", pluginsDir: "plugins", dataSourceUrl: "pglite:~/db" } })
      )
      expect(settings.dataDir).toBe(path.join(os.homedir(), "docs"))
      expect(settings.pluginsDir).toBe(path.resolve("plugins"))
      expect(settings.dataSourceUrl).toBe(`pglite:${path.join(os.homedir(), "db")}`)
    })
  )

  it.scoped("writes PATCHed settings to the default settings file when --settings is not given", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const settings = yield* resolveSettings(sourcesIn(dir))
      expect(settings.writableFile).toBe(path.join(dir, "absent-default.properties"))
      expect(settings.values.settings).toBeUndefined()
    })
  )
})

describe("resolveSettings rejects bad values, naming the option", () => {
  const rejects = (overrides: (dir: string) => Partial<SettingsSources>, option: string, fragment: string) =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const error = yield* Effect.flip(resolveSettings(sourcesIn(dir, overrides(dir))))
      expect(error._tag).toBe("InvalidSetting")
      expect(error.option).toBe(option)
      expect(error.message).toContain(`--${option}`)
      expect(error.message).toContain(fragment)
    })

  it.scoped("an unknown mode", () => rejects(() => ({ cli: { mode: "EMBEDDED" } }), "mode", "must be one of LOCAL, SERVER"))
  it.scoped("a port out of range", () => rejects(() => ({ cli: { tcpListenPort: "70000" } }), "tcpListenPort", "between 0 and 65535"))
  it.scoped("a port that is no number", () => rejects(() => ({ cli: { tcpListenPort: "80a" } }), "tcpListenPort", "integer"))
  it.scoped("a data source of another kind", () =>
    rejects(() => ({ cli: { dataSourceUrl: "jdbc:sqlite:x.db" } }), "dataSourceUrl", "postgresql")
  )
  it.scoped("an Elasticsearch address that is no URL", () =>
    rejects(() => ({ cli: { elasticsearchAddress: "es:9200" } }), "elasticsearchAddress", "http")
  )
  it.scoped("a boolean that is not true or false", () => rejects(() => ({ cli: { ocr: "yes" } }), "ocr", "true, false"))
  it.scoped("a missing --settings file", () =>
    rejects((dir) => ({ cli: { settings: path.join(dir, "missing.properties") } }), "settings", "cannot read")
  )
  it.scoped("a --settings path that is a directory", () => rejects((dir) => ({ cli: { settings: dir } }), "settings", "cannot read"))
  it.scoped("a default settings file that cannot be read", () =>
    rejects((dir) => ({ defaultSettingsFile: dir }), "settings", "cannot read")
  )

  it.scoped("a bad value from a file, saying which file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const given = writeFile(path.join(dir, "given.properties"), "mode=CLUSTER\n")
      yield* rejects(() => ({ cli: { settings: given, mode: "LOCAL" } }), "mode", `(from ${given})`)
    })
  )

  it.scoped("a bad value from a DS_DOCKER_ variable, saying so", () =>
    rejects(() => ({ env: { DS_DOCKER_TCP_LISTEN_PORT: "-1" } }), "tcpListenPort", "(from the environment)")
  )

  it.scoped("no error for a bad value that a higher level overrides", () =>
    Effect.gen(function* () {
      const settings = yield* resolveSettings(sourcesIn(yield* tempDir, { cli: { mode: "CLUSTER" }, env: { DS_DOCKER_MODE: "SERVER" } }))
      expect(settings.mode).toBe("SERVER")
    })
  )
})
