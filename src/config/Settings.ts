import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Ref, Schema } from "effect"
import { defaultValues, optionNames, optionSpecs } from "./Options.ts"
import { formatProperties, parseProperties } from "./Properties.ts"

/** A setting that cannot be used; the CLI prints `message` as its one-line error. */
export class InvalidSetting extends Schema.TaggedError<InvalidSetting>()("InvalidSetting", {
  option: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `invalid option --${this.option}: ${this.reason}`
  }
}

/** The settings file cannot be written (PATCH /api/settings answers 404). */
export class SettingsFileNotWritable extends Schema.TaggedError<SettingsFileNotWritable>()("SettingsFileNotWritable", {
  file: Schema.String
}) {}

export type Mode = "LOCAL" | "SERVER"

/** Where the settings come from, in the seed's precedence order (first wins). */
export interface SettingsSources {
  /** Process environment; only `DS_DOCKER_*` variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--name value` pairs from the command line. */
  readonly cli: Readonly<Record<string, string>>
  /** The settings file shipped with an installation, read when it exists. */
  readonly defaultSettingsFile: string
}

export const defaultSettingsFile = path.join(os.homedir(), ".config", "quarry", "quarry.properties")

/** `DS_DOCKER_ELASTICSEARCH_ADDRESS` → `elasticsearchAddress`. */
export const envNameToOption = (envName: string): string =>
  envName
    .slice("DS_DOCKER_".length)
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const fromEnv = (env: SettingsSources["env"]): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) =>
      name.startsWith("DS_DOCKER_") && value !== undefined ? [[envNameToOption(name), value]] : []
    )
  )

const readSettingsFile = (file: string, required: boolean) =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (cause) => cause
  }).pipe(
    Effect.map(parseProperties),
    Effect.catchAll((cause) =>
      !required && (cause as NodeJS.ErrnoException).code === "ENOENT"
        ? Effect.succeed<Record<string, string>>({})
        : Effect.fail(new InvalidSetting({ option: "settings", reason: `cannot read ${file}: ${String((cause as Error).message ?? cause)}` }))
    )
  )

const expandHome = (value: string) => (value === "~" || value.startsWith("~/") ? path.join(os.homedir(), value.slice(1)) : value)

/** Resolves every option with the seed's precedence: DS_DOCKER_ env > --settings file > default file > CLI > defaults. */
export const resolveSettings = (sources: SettingsSources) =>
  Effect.gen(function* () {
    const env = fromEnv(sources.env)
    const settingsFile = env.settings ?? sources.cli.settings
    const fromFile = settingsFile === undefined ? {} : yield* readSettingsFile(expandHome(settingsFile), true)
    const fromDefaultFile = yield* readSettingsFile(sources.defaultSettingsFile, false)
    const values: Record<string, string> = { ...defaultValues, ...sources.cli, ...fromDefaultFile, ...fromFile, ...env }
    for (const spec of optionSpecs) {
      const value = values[spec.name]
      const reason = value === undefined ? undefined : spec.check?.(value)
      if (reason !== undefined) return yield* new InvalidSetting({ option: spec.name, reason: `${JSON.stringify(value)} ${reason}` })
    }
    for (const name of ["dataDir", "pluginsDir", "extensionsDir", "batchDownloadDir", "settings"]) {
      const value = values[name]
      if (value !== undefined) values[name] = path.resolve(expandHome(value))
    }
    if (values.dataSourceUrl?.startsWith("pglite:") && values.dataSourceUrl !== "pglite:memory") {
      values.dataSourceUrl = `pglite:${path.resolve(expandHome(values.dataSourceUrl.slice("pglite:".length)))}`
    }
    return makeSettings(values, settingsFile === undefined ? sources.defaultSettingsFile : path.resolve(expandHome(settingsFile)))
  })

const makeSettings = (values: Readonly<Record<string, string>>, writableFile: string) => {
  const current = Ref.unsafeMake<Readonly<Record<string, string>>>(values)
  const text = (name: string) => values[name]
  const required = (name: string) => values[name] ?? ""
  const integer = (name: string) => Number(values[name])
  return {
    values,
    mode: required("mode") as Mode,
    tcpListenPort: integer("tcpListenPort"),
    bind: required("bind"),
    dataDir: required("dataDir"),
    dataSourceUrl: required("dataSourceUrl"),
    elasticsearchAddress: text("elasticsearchAddress"),
    defaultProject: required("defaultProject"),
    defaultUserName: required("defaultUserName"),
    cors: required("cors"),
    pluginsDir: text("pluginsDir"),
    extensionsDir: text("extensionsDir"),
    batchDownloadDir: required("batchDownloadDir"),
    parallelism: integer("parallelism"),
    sessionTtlSeconds: integer("sessionTtlSeconds"),
    protectedUriPrefix: required("protectedUriPrefix"),
    platform: text("platform"),
    /** The file PATCH /api/settings writes: `--settings`, else the default settings file. */
    writableFile,
    /** The running configuration, which PATCH /api/settings changes. */
    current
  }
}

export type SettingsShape = ReturnType<typeof makeSettings>

export class Settings extends Context.Tag("quarry/Settings")<Settings, SettingsShape>() {}

const hiddenFromPublic = /Address|Secret|Url|Key/

/** GET /settings: every running setting but those naming addresses, secrets, URLs and keys. */
export const publicSettings = (settings: SettingsShape) =>
  Ref.get(settings.current).pipe(
    Effect.map((values) => ({
      ...Object.fromEntries(Object.entries(values).filter(([name]) => !hiddenFromPublic.test(name))),
      pathSeparator: path.sep
    }))
  )

/**
 * PATCH /api/settings: merges the changes into the running configuration, then writes the whole configuration
 * to the settings file. Like the reference, the running change is kept even when the file cannot be written.
 */
export const updateSettings = (settings: SettingsShape, changes: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const merged = yield* Ref.updateAndGet(settings.current, (values) => ({ ...values, ...changes }))
    yield* Effect.tryPromise({
      try: async () => {
        await fs.mkdir(path.dirname(settings.writableFile), { recursive: true })
        await fs.writeFile(settings.writableFile, formatProperties(merged))
      },
      catch: () => new SettingsFileNotWritable({ file: settings.writableFile })
    })
  })

export const isKnownOption = (name: string) => optionNames.has(name)
