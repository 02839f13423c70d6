/**
 * Java properties files, the format of the reference's settings files, so that its users' files carry over:
 * `key=value`, `key: value` or `key value`; `#` and `!` start comment lines; a line ending in an odd number of
 * backslashes continues on the next one; `\t \n \r \f \uXXXX` and `\<char>` are escapes. Unlike Java, trailing
 * unescaped whitespace is dropped from values: a stray space after `mode=SERVER` would otherwise stop start-up.
 */

const whitespace = new Set([" ", "\t", "\f"])

/** Joins continued lines; comment and blank lines are dropped (only at the start of a logical line). */
const logicalLines = (text: string): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let pending: string | undefined
  for (const physical of text.split(/\r\n|\r|\n/)) {
    const line = physical.replace(/^[ \t\f]+/, "")
    if (pending === undefined && (line === "" || line.startsWith("#") || line.startsWith("!"))) continue
    const backslashes = /\\*$/.exec(line)![0].length
    const continues = backslashes % 2 === 1
    pending = (pending ?? "") + (continues ? line.slice(0, -1) : line)
    if (!continues) {
      lines.push(pending)
      pending = undefined
    }
  }
  if (pending !== undefined) lines.push(pending)
  return lines
}

const escapes: Readonly<Record<string, string>> = { t: "\t", n: "\n", r: "\r", f: "\f" }

/** Resolves escapes; unescaped trailing whitespace is dropped. A malformed `\u` stands for a plain `u`. */
const unescape = (text: string) => {
  let out = ""
  let kept = 0
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (char !== "\\" || index === text.length - 1) {
      out += char
      if (!whitespace.has(char)) kept = out.length
      continue
    }
    const next = text[++index]!
    const hex = text.slice(index + 1, index + 5)
    if (next === "u" && /^[0-9a-fA-F]{4}$/.test(hex)) {
      out += String.fromCharCode(parseInt(hex, 16))
      index += 4
    } else out += escapes[next] ?? next
    kept = out.length
  }
  return out.slice(0, kept)
}

const parseLine = (line: string): readonly [string, string] => {
  let end = 0
  while (end < line.length && !"=:".includes(line[end]!) && !whitespace.has(line[end]!)) end += line[end] === "\\" ? 2 : 1
  let start = end
  while (start < line.length && whitespace.has(line[start]!)) start++
  if (start < line.length && "=:".includes(line[start]!)) start++
  while (start < line.length && whitespace.has(line[start]!)) start++
  return [unescape(line.slice(0, end)), unescape(line.slice(start))]
}

export const parseProperties = (text: string): Record<string, string> => {
  const values: Record<string, string> = {}
  for (const line of logicalLines(text)) {
    const [key, value] = parseLine(line)
    if (key !== "") values[key] = value
  }
  return values
}

const escapeChar = (char: string) => {
  switch (char) {
    case "\\":
      return "\\\\"
    case "\t":
      return "\\t"
    case "\n":
      return "\\n"
    case "\r":
      return "\\r"
    case "\f":
      return "\\f"
    default:
      return char < " " ? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}` : char
  }
}

/** Escapes only what the parser needs, so that hand-edited files stay readable. */
const escapeKey = (key: string) =>
  key
    .split("")
    .map((char, index) => ("=: ".includes(char) || ("#!".includes(char) && index === 0) ? `\\${char}` : escapeChar(char)))
    .join("")

const escapeValue = (value: string) =>
  value
    .split("")
    .map((char, index) => (char === " " && (index === 0 || index === value.length - 1) ? "\\ " : escapeChar(char)))
    .join("")

/** One `key=value` line per entry, sorted by key; `parseProperties` reads it back unchanged. */
export const formatProperties = (values: Readonly<Record<string, string>>): string =>
  Object.keys(values)
    .sort()
    .map((key) => `${escapeKey(key)}=${escapeValue(values[key]!)}\n`)
    .join("")
