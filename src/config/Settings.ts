import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, SynchronizedRef } from "effect"
import { checkOption, defaultValues, isPathOption, parseKindConcurrency, parseSize } from "./Options.ts"
import { InvalidSetting, readSettingsFile, writeSettingsFile } from "./SettingsFile.ts"

export { isKnownOption } from "./Options.ts"
export { InvalidSetting, SettingsFileNotWritable } from "./SettingsFile.ts"

export type Mode = "LOCAL" | "SERVER"

/** Where the settings come from, in the seed's precedence order (first wins). */
export interface SettingsSources {
  /** Process environment; only `DS_DOCKER_*` variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--name value` pairs from the command line. */
  readonly cli: Readonly<Record<string, string>>
  /** The settings file of an installation, read when it exists, and written by PATCH without `--settings`. */
  readonly defaultSettingsFile: string
}

export const defaultSettingsFile = path.join(os.homedir(), ".config", "quarry", "quarry.properties")

const envPrefix = "DS_DOCKER_"

/** `DS_DOCKER_ELASTICSEARCH_ADDRESS` → `elasticsearchAddress`, the reference's conversion. */
export const envNameToOption = (envName: string): string =>
  envName
    .slice(envPrefix.length)
    .toLowerCase()
    .replace(/_([a-z0-9])/g, (_, char: string) => char.toUpperCase())

const fromEnv = (env: SettingsSources["env"]): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) =>
      name.startsWith(envPrefix) && name.length > envPrefix.length && value !== undefined ? [[envNameToOption(name), value]] : []
    )
  )

const expandHome = (value: string) => (value === "~" || value.startsWith("~/") ? path.join(os.homedir(), value.slice(1)) : value)

const resolvePath = (value: string) => path.resolve(expandHome(value))

/** Paths become absolute once, so that every later reader (and /settings) sees the same folder. */
const normalise = (name: string, value: string) => {
  if (isPathOption(name)) return resolvePath(value)
  if (name === "dataSourceUrl" && value.startsWith("pglite:") && value !== "pglite:memory") {
    return `pglite:${resolvePath(value.slice("pglite:".length))}`
  }
  return value
}

/**
 * Resolves every option with the seed's precedence: DS_DOCKER_ variables > the `--settings` file > the default
 * settings file > command-line options > defaults. Every known option is checked; a bad value fails with the
 * option's name and where the value came from, since a file or variable may override what the user typed.
 */
export const resolveSettings = (sources: SettingsSources) =>
  Effect.gen(function* () {
    const env = fromEnv(sources.env)
    const given = env.settings ?? sources.cli.settings
    const settingsFile = given === undefined ? undefined : resolvePath(given)
    const fromFile = settingsFile === undefined ? {} : yield* readSettingsFile(settingsFile, true)
    const fromDefaultFile = yield* readSettingsFile(sources.defaultSettingsFile, false)
    const layers: ReadonlyArray<readonly [string, Readonly<Record<string, string>>]> = [
      ["the defaults", defaultValues],
      ["the command line", sources.cli],
      [sources.defaultSettingsFile, fromDefaultFile],
      [settingsFile ?? "--settings", fromFile],
      ["the environment", env]
    ]
    const values: Record<string, string> = {}
    const origins: Record<string, string> = {}
    for (const [origin, layer] of layers) {
      for (const [name, value] of Object.entries(layer)) {
        values[name] = value
        origins[name] = origin
      }
    }
    for (const [name, value] of Object.entries(values)) {
      const reason = checkOption(name, value)
      if (reason === undefined) continue
      const origin = origins[name] === "the command line" ? "" : ` (from ${origins[name]})`
      return yield* new InvalidSetting({ option: name, reason: `${reason}${origin}` })
    }
    for (const name of Object.keys(values)) values[name] = normalise(name, values[name]!)
    if (settingsFile !== undefined) values.settings = settingsFile
    return makeSettings(values, settingsFile ?? sources.defaultSettingsFile)
  })

const makeSettings = (values: Readonly<Record<string, string>>, writableFile: string) => {
  const text = (name: string) => values[name]
  const required = (name: string) => values[name] ?? ""
  const integer = (name: string) => Number(values[name])
  const mode: Mode = values.mode === "SERVER" ? "SERVER" : "LOCAL"
  return {
    /** The values at start-up. */
    values,
    mode,
    tcpListenPort: integer("tcpListenPort"),
    bind: required("bind"),
    dataDir: required("dataDir"),
    dataSourceUrl: required("dataSourceUrl"),
    elasticsearchAddress: text("elasticsearchAddress"),
    defaultProject: required("defaultProject"),
    defaultUserName: required("defaultUserName"),
    cors: required("cors"),
    /** Lowercase host names that Host may name besides localhost, IP addresses and `bind`. */
    allowedHosts: (values.allowedHosts ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
    authFailureWindowSeconds: integer("authFailureWindowSeconds"),
    pluginsDir: text("pluginsDir"),
    extensionsDir: text("extensionsDir"),
    /** A built front end served at / and below, instead of Quarry's own page. */
    webRoot: text("webRoot"),
    deliverablesRegistry: text("deliverablesRegistry"),
    /** Bytes. */
    deliverableMaxSize: parseSize(required("deliverableMaxSize")),
    /** Seconds. */
    deliverableDownloadTimeout: integer("deliverableDownloadTimeout"),
    batchDownloadDir: required("batchDownloadDir"),
    parallelism: integer("parallelism"),
    taskConcurrency: parseKindConcurrency(values.taskConcurrency ?? ""),
    sessionTtlSeconds: integer("sessionTtlSeconds"),
    protectedUriPrefix: required("protectedUriPrefix"),
    platform: text("platform"),
    /** The file PATCH /api/settings writes: `--settings`, else the default settings file. */
    writableFile,
    /**
     * The running configuration, which PATCH /api/settings changes (the typed fields above keep their start-up
     * values until a restart). Synchronized so that concurrent PATCHes write the file one after the other.
     */
    current: SynchronizedRef.unsafeMake<Readonly<Record<string, string>>>(values)
  }
}

export type SettingsShape = ReturnType<typeof makeSettings>

export class Settings extends Context.Tag("quarry/Settings")<Settings, SettingsShape>() {}

const hiddenFromPublic = /Address|Secret|Url|Key/

/** GET /settings: every running setting but those naming addresses, secrets, URLs and keys (case-sensitive). */
export const publicSettings = (settings: SettingsShape) =>
  SynchronizedRef.get(settings.current).pipe(
    Effect.map((values): Record<string, string> => ({
      ...Object.fromEntries(Object.entries(values).filter(([name]) => !hiddenFromPublic.test(name))),
      pathSeparator: path.sep
    }))
  )

/**
 * PATCH /api/settings: checks the values of known options, saves the changes to the settings file, then makes
 * them part of the running configuration. Unlike the reference, a failed write changes nothing, so that the
 * 404 the caller sees means what it says.
 */
export const updateSettings = (settings: SettingsShape, changes: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    for (const [name, value] of Object.entries(changes)) {
      const reason = checkOption(name, value)
      if (reason !== undefined) return yield* new InvalidSetting({ option: name, reason })
    }
    const normalised = Object.fromEntries(Object.entries(changes).map(([name, value]) => [name, normalise(name, value)]))
    yield* SynchronizedRef.updateEffect(settings.current, (values) =>
      writeSettingsFile(settings.writableFile, normalised).pipe(Effect.as({ ...values, ...normalised }))
    )
  })
