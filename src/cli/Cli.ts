import { NodeRuntime } from "@effect/platform-node"
import { Effect, Logger, LogLevel } from "effect"
import { isKnownOption, resolveSettings, defaultSettingsFile } from "../config/Settings.ts"
import { runServer } from "../Quarry.ts"
import { parseArgs } from "./Args.ts"
import { helpText } from "./Help.ts"
import { CliFailure } from "./CliFailure.ts"

const serveOptions = (options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const unknown = Object.keys(options).find((name) => !isKnownOption(name))
    if (unknown !== undefined) return yield* new CliFailure({ message: `unknown option --${unknown} (see --help)` })
    return options
  })

/**
 * Runs one command line. Expected failures print one line and exit with status 2; SIGTERM and SIGINT interrupt
 * the program, which releases every resource (the server drains, tasks are released, the database closes).
 */
export const runCli = (argv: ReadonlyArray<string>) => {
  const args = parseArgs(argv)
  if (args.help) {
    process.stdout.write(helpText())
    return
  }
  const [command = "serve"] = args.words
  const program = Effect.gen(function* () {
    if (command === "serve") {
      const cli = yield* serveOptions(args.options)
      const settings = yield* resolveSettings({ env: process.env, cli, defaultSettingsFile })
      return yield* runServer(settings).pipe(Effect.provide(settings.mode === "SERVER" ? Logger.json : Logger.pretty))
    }
    return yield* new CliFailure({ message: `unknown command ${command} (see --help)` })
  }).pipe(
    Effect.catchAll((error) =>
      Effect.sync(() => {
        console.error(`quarry: ${error.message}`)
        process.exitCode = 2
      })
    ),
    Logger.withMinimumLogLevel(LogLevel.Info)
  )
  NodeRuntime.runMain(program, { disablePrettyLogger: true })
}
