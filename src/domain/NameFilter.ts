/**
 * The `filter` of `GET /api/task/all` and `GET /api/plugins|extensions`: the reference compiles it as a Java regular
 * expression found anywhere in a name, and its clients send class or package names (`BatchDownloadRunner`,
 * `Tally.*@`, `^quarry-ext$`, `alert|hello`). A regular expression from a caller can backtrack for ever on the event
 * loop (`^([a-zA-Z.]+)+X`), so only the part of the syntax those filters use is understood, and matched without
 * backtracking:
 * - `|` separates alternatives; `^` at the start and `$` at the end of one anchor it;
 * - `.*` is any run of characters, `.` any one character;
 * - `\` makes the next character literal; every other character is itself (so `(`, `[`, `+` are just characters).
 * Matching ignores case. Each alternative is matched with the two-pointer wildcard algorithm: it only ever goes back
 * to the last `.*`, so a match costs at most (name length × filter length) steps.
 */

type Token = { readonly _tag: "Char"; readonly char: string } | { readonly _tag: "Any" } | { readonly _tag: "Run" }

const char = (value: string): Token => ({ _tag: "Char", char: value.toLowerCase() })
const any: Token = { _tag: "Any" }
const run: Token = { _tag: "Run" }

/** Splits on the `|` that are not escaped. */
const alternatives = (filter: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let current = ""
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i] ?? ""
    if (c === "\\" && i + 1 < filter.length) current += c + (filter[++i] ?? "")
    else if (c === "|") (parts.push(current), (current = ""))
    else current += c
  }
  parts.push(current)
  return parts
}

/** The tokens of one alternative, unanchored ends given a leading or trailing run. */
const tokensOf = (alternative: string): ReadonlyArray<Token> => {
  const anchoredStart = alternative.startsWith("^")
  const anchoredEnd = alternative.endsWith("$") && !alternative.endsWith("\\$")
  const body = alternative.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined)
  const tokens: Array<Token> = anchoredStart ? [] : [run]
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? ""
    if (c === "\\" && i + 1 < body.length) tokens.push(char(body[++i] ?? ""))
    else if (c === "." && body[i + 1] === "*") (tokens.push(run), i++)
    else tokens.push(c === "." ? any : char(c))
  }
  if (!anchoredEnd) tokens.push(run)
  return tokens
}

/** Whether the tokens match the whole text: on a mismatch, go back only to just after the last run. */
const matchesAll = (tokens: ReadonlyArray<Token>, text: string): boolean => {
  let t = 0
  let s = 0
  let lastRun = -1
  let runEnd = 0
  while (s < text.length) {
    const token = tokens[t]
    if (token !== undefined && (token._tag === "Any" || (token._tag === "Char" && token.char === text[s]))) {
      t++
      s++
    } else if (token !== undefined && token._tag === "Run") {
      lastRun = t++
      runEnd = s
    } else if (lastRun >= 0) {
      t = lastRun + 1
      s = ++runEnd
    } else return false
  }
  while (tokens[t]?._tag === "Run") t++
  return t === tokens.length
}

/** A predicate for the filter; everything matches an absent or empty one. */
export const nameFilter = (filter: string | undefined): ((name: string) => boolean) => {
  if (filter === undefined || filter === "") return () => true
  const compiled = alternatives(filter).map(tokensOf)
  return (name) => {
    const lower = name.toLowerCase()
    return compiled.some((tokens) => matchesAll(tokens, lower))
  }
}
