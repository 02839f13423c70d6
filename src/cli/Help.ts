import { optionSpecs } from "../config/Options.ts"
import { defaultSettingsFile } from "../config/Settings.ts"

/** The text of `--help`: commands, then every option with its default. */
export const helpText = () => {
  const width = Math.max(...optionSpecs.map((spec) => spec.name.length)) + 4
  const options = optionSpecs
    .map((spec) => {
      const defaultText = ` (default: ${spec.defaultValue ?? "unset"})`
      return `  --${spec.name.padEnd(width)}${spec.description}${defaultText}`
    })
    .join("\n")
  return `Usage: quarry [command] [options]

Commands:
  serve                          run the HTTP server (the default command)
  (no command) --mode CLI --stages SCAN,INDEX [--dataDir d] [--defaultProject p]
                                 scan the data folder and index it, with a progress bar, then exit (no server)
  user add <login> --password <pw> [--email e] [--name n] [--projects a,b] [--admin]
                                 create or update a user of SERVER mode
  user list                      list users
  user remove <login>            remove a user
  review from-batch-search <uuid> --reviewProject <id> --choiceGroup <id> [--checkers a,b] [--rounds n] [--name n]
                                 send a batch search's hits to a new review task (or, with --task <id>, add the new
                                 hits to it); [--queries q1,q2] [--maxHitsPerQuery n] [--skipReviewed] [--user login]
  review tag-documents <task> --tag <tag> --confirming v1,v2 [--user login]
                                 tag the documents of the task's records confirmed by those choice values

Options (settings files and DS_DOCKER_<NAME> variables use the same names, e.g. DS_DOCKER_TCP_LISTEN_PORT).
First found wins: DS_DOCKER_ variables, the --settings file, ${defaultSettingsFile}, the command line, defaults.
${options}
  --help                         show this text
`
}
