import { HttpApiSchema } from "@effect/platform"
import { Effect, Schema } from "effect"

/** A task option whose value cannot be used. */
export class InvalidTaskOption extends Schema.TaggedError<InvalidTaskOption>()(
  "InvalidTaskOption",
  { option: Schema.String, value: Schema.String, expected: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return `option ${this.option} must be ${this.expected}, not ${JSON.stringify(this.value)}`
  }
}

/** The scanner's filters. */
export const ScanOptions = Schema.Struct({
  includeHiddenFiles: Schema.Boolean,
  includeOSFiles: Schema.Boolean,
  includePattern: Schema.optional(Schema.String),
  excludePattern: Schema.optional(Schema.String),
  followSymlinks: Schema.Boolean,
  /** Directory levels below the start directory whose files are queued: 1 = its own files only. */
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type ScanOptions = typeof ScanOptions.Type

/** The reference's queue name; tasks queued before queues were named use it too. */
export const defaultQueueName = "extract:queue"

export const ScanPayload = Schema.Struct({
  /** Absolute path of the directory to walk. */
  directory: Schema.String,
  /** The project whose queue receives the files. */
  project: Schema.String,
  /** The queue (of that project) the files go to; `defaultQueueName` when absent. */
  queueName: Schema.optional(Schema.String),
  /** The `filter` option: files whose path is already in the project's index are not queued. */
  skipIndexed: Schema.optional(Schema.Boolean),
  /** The folder followed links must resolve into (the data folder, or the project's source folder); none: no limit. */
  boundary: Schema.optional(Schema.String),
  options: ScanOptions
})
export type ScanPayload = typeof ScanPayload.Type

export const IndexPayload = Schema.Struct({
  project: Schema.String,
  /** The queue (of that project) drained; `defaultQueueName` when absent. */
  queueName: Schema.optional(Schema.String),
  /** Files extracted at once. */
  parallelism: Schema.Int.pipe(Schema.between(1, 1024)),
  ocr: Schema.Boolean,
  language: Schema.optional(Schema.String),
  /** Characters of content kept; -1 keeps all. */
  maxContentLength: Schema.Int
})
export type IndexPayload = typeof IndexPayload.Type

/** The queue a scan fills or an index drains. */
export const queueOf = (payload: { readonly queueName?: string | undefined }) => payload.queueName ?? defaultQueueName

/** Request options as the reference reads them: every value coerced to a string (`{"ocr": false}` = "false"). */
export const optionTexts = (options: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(options).flatMap(([key, value]) =>
      value === null || value === undefined ? [] : [[key, typeof value === "object" ? JSON.stringify(value) : String(value)]]
    )
  )

const text = (options: Readonly<Record<string, string>>, name: string) => {
  const value = options[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

const boolean = (options: Readonly<Record<string, string>>, name: string, fallback: boolean) => {
  const value = text(options, name)?.toLowerCase()
  if (value === undefined) return Effect.succeed(fallback)
  if (value === "true" || value === "false") return Effect.succeed(value === "true")
  return Effect.fail(new InvalidTaskOption({ option: name, value, expected: "true or false" }))
}

const sizeUnits: Readonly<Record<string, number>> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }

/** An integer, with the reference's K/M/G suffixes for sizes. */
const integer = (options: Readonly<Record<string, string>>, name: string, minimum: number) => {
  const value = text(options, name)
  if (value === undefined) return Effect.succeed(undefined)
  const match = /^(-?\d+)([KMG]?)B?$/i.exec(value)
  const parsed = match === null ? Number.NaN : Number(match[1]) * (sizeUnits[match[2]!.toUpperCase()] ?? 1)
  return Number.isSafeInteger(parsed) && parsed >= minimum
    ? Effect.succeed(parsed)
    : Effect.fail(new InvalidTaskOption({ option: name, value, expected: `an integer of at least ${minimum}` }))
}

/** The scan of `directory` into `project`'s queue with the given options (values as strings). */
export const scanPayloadOf = Effect.fn("IngestOptions.scanPayload")(function* (
  directory: string,
  project: string,
  options: Readonly<Record<string, string>>
) {
  const maxDepth = yield* integer(options, "maxDepth", 1)
  const includePattern = text(options, "includePattern")
  const excludePattern = text(options, "excludePattern")
  return ScanPayload.make({
    directory,
    project,
    queueName: text(options, "queueName") ?? defaultQueueName,
    skipIndexed: yield* boolean(options, "filter", false),
    options: {
      includeHiddenFiles: yield* boolean(options, "includeHiddenFiles", false),
      includeOSFiles: yield* boolean(options, "includeOSFiles", false),
      followSymlinks: yield* boolean(options, "followSymlinks", false),
      ...(includePattern === undefined ? {} : { includePattern }),
      ...(excludePattern === undefined ? {} : { excludePattern }),
      ...(maxDepth === undefined ? {} : { maxDepth })
    }
  })
})

/** The project an index or scan writes to: the `defaultProject` option. */
export const projectOf = (options: Readonly<Record<string, string>>, fallback: string) => text(options, "defaultProject") ?? fallback

/** An index task's payload from the options (values as strings), `defaults` filling what they leave out. */
export const indexPayloadOf = Effect.fn("IngestOptions.indexPayload")(function* (
  options: Readonly<Record<string, string>>,
  defaults: { readonly project: string; readonly parallelism: number }
) {
  const language = text(options, "language")
  return IndexPayload.make({
    project: projectOf(options, defaults.project),
    queueName: text(options, "queueName") ?? defaultQueueName,
    parallelism: Math.min(1024, (yield* integer(options, "parallelism", 1)) ?? defaults.parallelism),
    ocr: yield* boolean(options, "ocr", true),
    maxContentLength: (yield* integer(options, "maxContentLength", -1)) ?? -1,
    ...(language === undefined ? {} : { language })
  })
})
