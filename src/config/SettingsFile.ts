import * as fs from "node:fs/promises"
import * as path from "node:path"
import { HttpApiSchema } from "@effect/platform"
import { Effect, Schema } from "effect"
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

/** The settings file cannot be written; PATCH /api/settings answers 404, as the reference does. */
export class SettingsFileNotWritable extends Schema.TaggedError<SettingsFileNotWritable>()(
  "SettingsFileNotWritable",
  { file: Schema.String, reason: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `the settings file ${this.file} cannot be written: ${this.reason}`
  }
}

const errorCode = (cause: unknown) => (cause instanceof Error && "code" in cause ? cause.code : undefined)
const errorText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

const readText = (file: string) =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (cause) => cause }).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchIf(
      (cause) => errorCode(cause) === "ENOENT",
      () => Effect.succeed(undefined)
    )
  )

/**
 * The settings of a properties file. A missing `--settings` file is an error (a typo must not go unnoticed);
 * a missing default settings file just means there is none.
 */
export const readSettingsFile = (file: string, required: boolean) =>
  readText(file).pipe(
    Effect.mapError((cause) => new InvalidSetting({ option: "settings", reason: `cannot read ${file}: ${errorText(cause)}` })),
    Effect.flatMap((text) =>
      text === undefined && required
        ? Effect.fail(new InvalidSetting({ option: "settings", reason: `cannot read ${file}: no such file` }))
        : Effect.succeed(text === undefined ? {} : parseProperties(text))
    )
  )

/**
 * Saves `changes` into the file, keeping the entries it already has. Only the file's own entries and the
 * changes are written, not the whole running configuration as the reference does: since the file outranks the
 * command line, writing every value would silently freeze today's command-line options and defaults.
 * The new content goes to a temporary file renamed over the old one, so a crash never leaves half a file.
 */
export const writeSettingsFile = (file: string, changes: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const notWritable = (cause: unknown) => new SettingsFileNotWritable({ file, reason: errorText(cause) })
    const existing = yield* readText(file).pipe(Effect.mapError(notWritable))
    const content = formatProperties({ ...(existing === undefined ? {} : parseProperties(existing)), ...changes })
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
    yield* Effect.tryPromise({
      try: async () => {
        await fs.mkdir(path.dirname(file), { recursive: true })
        await fs.writeFile(temporary, content)
        await fs.rename(temporary, file)
      },
      catch: notWritable
    }).pipe(
      // Best effort: the temporary file may never have been created.
      Effect.tapError(() => Effect.tryPromise(() => fs.rm(temporary, { force: true })).pipe(Effect.ignore))
    )
  })
