import { optionSpecs } from "../config/Options.ts"

/** The text of `--help`: commands, then every option with its default. */
export const helpText = () => {
  const width = Math.max(...optionSpecs.map((spec) => spec.name.length)) + 4
  const options = optionSpecs
    .map((spec) => {
      const defaultText = spec.defaultValue === undefined ? "" : ` (default: ${spec.defaultValue})`
      return `  --${spec.name.padEnd(width)}${spec.description}${defaultText}`
    })
    .join("\n")
  return `Usage: quarry [command] [options]

Commands:
  serve                          run the HTTP server (the default command)
  user add <login> --password <pw> [--email e] [--name n] [--projects a,b] [--admin]
                                 create or update a user of SERVER mode
  user list                      list users
  user remove <login>            remove a user

Options (settings files and DS_DOCKER_<NAME> variables use the same names):
${options}
  --help                         show this text
`
}
