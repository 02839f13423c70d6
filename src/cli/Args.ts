export interface ParsedArgs {
  /** Words that are not options: the command and its arguments (`user add alice`). */
  readonly words: ReadonlyArray<string>
  /** `--name value` and `--name=value` pairs; a trailing `--flag` alone is "true". */
  readonly options: Readonly<Record<string, string>>
  readonly help: boolean
}

/** Splits a command line into words and options, without knowing which options exist. */
export const parseArgs = (argv: ReadonlyArray<string>): ParsedArgs => {
  const words: Array<string> = []
  const options: Record<string, string> = {}
  let help = false
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (arg === "--help" || arg === "-h") {
      help = true
      continue
    }
    if (!arg.startsWith("-")) {
      words.push(arg)
      continue
    }
    const body = arg.replace(/^--?/, "")
    const equals = body.indexOf("=")
    if (equals > 0) {
      options[body.slice(0, equals)] = body.slice(equals + 1)
      continue
    }
    const next = argv[index + 1]
    if (next === undefined || next.startsWith("--")) options[body] = "true"
    else {
      options[body] = next
      index++
    }
  }
  // The reference's short form for the settings file.
  if (options.s !== undefined) {
    options.settings = options.s
    delete options.s
  }
  return { words, options, help }
}
