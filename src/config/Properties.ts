/**
 * Java-style properties files, the format of the reference's settings files: one `key=value` (or `key: value`)
 * per line, `#` and `!` start comments, blank lines are ignored. Line continuations are not supported because
 * no setting needs a multi-line value.
 */
export const parseProperties = (text: string): Record<string, string> => {
  const values: Record<string, string> = {}
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim()
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue
    const separator = line.search(/[=:]/)
    const key = (separator < 0 ? line : line.slice(0, separator)).trim()
    const value = separator < 0 ? "" : line.slice(separator + 1).trim()
    if (key !== "") values[key] = value
  }
  return values
}

export const formatProperties = (values: Readonly<Record<string, string>>): string =>
  Object.keys(values)
    .sort()
    .map((key) => `${key}=${values[key]}\n`)
    .join("")
