import { runCli } from "./cli/Cli.ts"

runCli(process.argv.slice(2))
