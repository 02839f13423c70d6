// The module alone: the package index also loads cluster, RPC and socket modules a CLI command never uses.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Logger, LogLevel } from "effect"
import { defaultSettingsFile, isKnownOption, resolveSettings } from "../config/Settings.ts"
import { parseArgs } from "./Args.ts"
import { CliFailure } from "./CliFailure.ts"
import { helpText } from "./Help.ts"

/** `serve`: checks the command line before anything starts, then serves until SIGTERM or SIGINT. */
const serve = (extraWords: ReadonlyArray<string>, options: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const unknown = Object.keys(options).find((name) => !isKnownOption(name))
    if (unknown !== undefined) return yield* new CliFailure({ message: `unknown option --${unknown} (see --help)` })
    if (extraWords.length > 0) return yield* new CliFailure({ message: `unexpected argument ${extraWords[0]} (see --help)` })
    const settings = yield* resolveSettings({ env: process.env, cli: options, defaultSettingsFile })
    const { runServer } = yield* Effect.promise(() => import("../Quarry.ts"))
    // Servers are read by log collectors, desktops by people.
    return yield* runServer(settings).pipe(
      Effect.provide(settings.mode === "SERVER" ? Logger.json : Logger.pretty),
      Effect.catchIf(isListenError, (error) =>
        Effect.fail(
          new CliFailure({
            message: `cannot listen on ${settings.bind}:${settings.tcpListenPort} (--bind, --tcpListenPort): ${error.code}`
          })
        )
      )
    )
  })

/** node:http's failure to listen (port in use, address not local, no permission), to name the options behind it. */
const isListenError = (error: unknown): error is NodeJS.ErrnoException & { code: string } =>
  error instanceof Error && "syscall" in error && error.syscall === "listen" && "code" in error && typeof error.code === "string"

/** Expected failures are one line on stderr, whatever their message holds, so scripts can show or grep it. */
const oneLine = (message: string) => message.replace(/\s*\n\s*/g, " ").trim()

/**
 * Runs one command line. Expected failures print one line and exit with status 2; SIGTERM and SIGINT interrupt
 * the program, which releases every resource (the server drains, tasks are released, the database and its lock
 * file close) and exits with status 0.
 */
export const runCli = (argv: ReadonlyArray<string>) => {
  const args = parseArgs(argv)
  if (args.help) {
    process.stdout.write(helpText())
    return
  }
  const [command = "serve", ...rest] = args.words
  // Each command imports its modules when it runs: `user` and `review` then skip the server's, seconds of start-up.
  const program = Effect.gen(function* () {
    switch (command) {
      case "serve": {
        if (args.options.mode !== "CLI") return yield* serve(rest, args.options)
        // Datashare's CLI mode: the same command line runs the stages and exits instead of serving.
        const { runIndexCommand } = yield* Effect.promise(() => import("./IndexCommand.ts"))
        return yield* runIndexCommand(rest, args.options)
      }
      case "user": {
        const { runUserCommand } = yield* Effect.promise(() => import("./UserCommand.ts"))
        return yield* runUserCommand(rest, args.options)
      }
      case "review": {
        const { runReviewCommand } = yield* Effect.promise(() => import("./ReviewCommand.ts"))
        return yield* runReviewCommand(rest, args.options)
      }
      default:
        return yield* new CliFailure({ message: `unknown command ${command} (see --help)` })
    }
  }).pipe(
    Effect.catchAll((error) =>
      Effect.sync(() => {
        console.error(`quarry: ${oneLine(error.message)}`)
        process.exitCode = 2
      })
    ),
    Logger.withMinimumLogLevel(LogLevel.Info)
  )
  // Without the pretty logger runMain would add, `serve` picks the logger of its mode and logs each line once.
  NodeRuntime.runMain(program, { disablePrettyLogger: true })
}
