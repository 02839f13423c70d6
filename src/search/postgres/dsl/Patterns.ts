import { Effect } from "effect"
import { illegalArgument, SearchRequestError, shardFailure, unsupported } from "./Errors.ts"

/** A query the engine cannot build from valid JSON (a query_string syntax error, a bad number or date). */
export const queryShardError = (reason: string) => new SearchRequestError({ esType: "query_shard_exception", reason, status: 400 })

/** PostgreSQL's limit on `{n,m}` repetition counts. */
const maxRepetition = 255
/** ES's `index.max_regex_length`. */
const maxRegexLength = 1_000

/**
 * A Lucene regular expression (the subset Quarry accepts: literals, `.`, `?`, `*`, `+`, `{n,m}`, `|`,
 * groups, character classes, escapes) as a POSIX pattern anchored at both ends, as Lucene matches whole terms.
 * Lucene's extra operators (`@`, `&`, `~`, `<n-m>`, `#`, quoted strings) are refused.
 */
export const translateRegexp = (pattern: string) =>
  Effect.gen(function* () {
    if (pattern.length > maxRegexLength) {
      return yield* shardFailure(
        "illegal_argument_exception",
        `The length of regex [${pattern.length}] used in the Regexp Query request has exceeded the allowed maximum of [${maxRegexLength}]. This maximum can be set by changing the [index.max_regex_length] index level setting.`
      )
    }
    let out = ""
    let depth = 0
    let i = 0
    while (i < pattern.length) {
      const c = pattern[i]!
      if (c === "\\") {
        const next = pattern[i + 1]
        if (next === undefined) return yield* illegalArgument(`invalid regular expression [${pattern}]: dangling escape`)
        out += escapeLiteral(next)
        i += 2
        continue
      }
      if (c === "[") {
        const end = classEnd(pattern, i)
        if (end < 0) return yield* illegalArgument(`invalid regular expression [${pattern}]: unterminated character class`)
        let body = pattern.slice(i + 1, end)
        const negated = body.startsWith("^")
        if (negated) body = body.slice(1)
        if (body === "") return yield* illegalArgument(`invalid regular expression [${pattern}]: empty character class`)
        const members = body.replace(/\\(.)/g, (_, escaped: string) => (/[a-zA-Z0-9]/.test(escaped) ? escaped : `\\${escaped}`))
        if (/(^|[^\\])\[/.test(body)) return yield* illegalArgument(`invalid regular expression [${pattern}]: nested class`)
        out += `[${negated ? "^" : ""}${members}]`
        i = end + 1
        continue
      }
      if (c === "{") {
        const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))
        if (match === null || out === "" || /[(|]$/.test(out))
          return yield* illegalArgument(`invalid regular expression [${pattern}]: bad repetition`)
        const low = Number(match[1])
        const high = match[3] === undefined || match[3] === "" ? undefined : Number(match[3])
        if (low > maxRepetition || (high !== undefined && (high > maxRepetition || high < low))) {
          return yield* illegalArgument(`invalid regular expression [${pattern}]: bad repetition count`)
        }
        out += match[0]
        i += match[0].length
        continue
      }
      if (c === "*" || c === "+" || c === "?") {
        if (out === "" || /[(|]$/.test(out) || /[*+?]$/.test(out))
          return yield* illegalArgument(`invalid regular expression [${pattern}]: nothing to repeat`)
        out += c
        i++
        continue
      }
      if (c === "(") {
        depth++
        out += "(?:"
        i++
        continue
      }
      if (c === ")") {
        if (depth === 0) return yield* illegalArgument(`invalid regular expression [${pattern}]: unbalanced parenthesis`)
        depth--
        out += ")"
        i++
        continue
      }
      if (c === "|" || c === ".") {
        out += c
        i++
        continue
      }
      if ('@&~<>#"'.includes(c)) return yield* unsupported(`regular expression operator ${c}`)
      out += escapeLiteral(c)
      i++
    }
    if (depth !== 0) return yield* illegalArgument(`invalid regular expression [${pattern}]: unbalanced parenthesis`)
    if (repetitionStates(out) > maxRepetitionStates) {
      return yield* shardFailure(
        "too_complex_to_determinize_exception",
        `Determinizing [${pattern}] would result in more than ${maxRepetitionStates} states: its counted repetitions multiply them.`
      )
    }
    const anchored = `^(?:${out})$`
    // The translation is also valid for JavaScript's engine, which catches what slipped through before SQL sees it.
    const valid = yield* Effect.try(() => new RegExp(anchored)).pipe(Effect.option)
    if (valid._tag === "None") return yield* illegalArgument(`invalid regular expression [${pattern}]`)
    return anchored
  })

/** Counted repetitions multiply the states of a compiled expression; their product is kept small. */
const maxRepetitionStates = 1_000
const repetitionStates = (translated: string) =>
  [...translated.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].reduce((product, match) => product * Math.max(1, Number(match[2] || match[1])), 1)

const classEnd = (pattern: string, start: number) => {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++
    else if (pattern[i] === "]" && i > start + 1 && !(i === start + 2 && pattern[start + 1] === "^")) return i
  }
  return -1
}

const escapeLiteral = (c: string) => (/[a-zA-Z0-9_\s]/.test(c) || c.charCodeAt(0) > 127 ? c : `\\${c}`)

/** A Lucene wildcard (`*`, `?`, `\` escapes) as a LIKE pattern with `\` as its escape character. */
export const wildcardToLike = (pattern: string) => {
  let out = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) {
      out += likeLiteral(pattern[++i]!)
    } else if (c === "*") out += "%"
    else if (c === "?") out += "_"
    else out += likeLiteral(c)
  }
  return out
}

const likeLiteral = (c: string) => (c === "%" || c === "_" || c === "\\" ? `\\${c}` : c)

/** The literal prefix of a wildcard pattern when its only wildcard is one trailing `*` (`pre*`). */
export const trailingStarPrefix = (pattern: string) => {
  if (!pattern.endsWith("*") || pattern.endsWith("\\*")) return undefined
  const prefix = pattern.slice(0, -1)
  return /(^|[^\\])[*?]|\\/.test(prefix) ? undefined : prefix
}

/** Wildcard characters of a pattern only, with escapes removed from the literal parts (for normalisation). */
export const mapWildcardLiterals = (pattern: string, normalize: (text: string) => string) => {
  let out = ""
  let literal = ""
  const flush = () => {
    out += normalize(literal).replace(/[\\*?]/g, (c) => `\\${c}`)
    literal = ""
  }
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) literal += pattern[++i]
    else if (c === "*" || c === "?") {
      flush()
      out += c
    } else literal += c
  }
  flush()
  return out
}

const unitMillis: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * A date bound of a range or a term: epoch milliseconds (number or digits), an ISO-8601 date or date-time, or
 * `now` with `+N`/`-N` units and `/unit` rounding. Undefined when it is none of these.
 */
export const parseDate = (value: string | number | boolean, now = Date.now()): Date | undefined => {
  if (typeof value === "boolean") return undefined
  if (typeof value === "number") return Number.isFinite(value) ? validDate(new Date(value)) : undefined
  const text = value.trim()
  if (/^-?\d{5,}$/.test(text)) return validDate(new Date(Number(text)))
  if (text.startsWith("now")) return dateMath(text.slice(3), new Date(now))
  const anchorEnd = text.indexOf("||")
  if (anchorEnd >= 0) {
    const anchor = parseDate(text.slice(0, anchorEnd), now)
    return anchor === undefined ? undefined : dateMath(text.slice(anchorEnd + 2), anchor)
  }
  if (!/^\d{4}(-\d{2}(-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?)?)?$/.test(text)) return undefined
  const [date, time] = text.split(/[T ]/)
  const [year, month = "01", day = "01"] = date!.split("-")
  const iso = `${year}-${month}-${day}T${time === undefined ? "00:00:00" : time}${time !== undefined && /(Z|[+-]\d{2}(:?\d{2})?)$/.test(time) ? "" : "Z"}`
  return validDate(new Date(iso))
}

/** Years 1 to 9999: what ISO-8601 writes with four digits and PostgreSQL reads back. */
const validDate = (date: Date) => {
  const year = date.getUTCFullYear()
  return Number.isNaN(date.getTime()) || year < 1 || year > 9999 ? undefined : date
}

const dateMath = (expression: string, anchor: Date): Date | undefined => {
  let time = anchor.getTime()
  let rest = expression
  while (rest.length > 0) {
    const step = /^([+-])(\d+)([yMwdhHms])|^\/([yMwdhHms])/.exec(rest)
    if (step === null) return undefined
    if (step[4] !== undefined) time = roundDown(time, step[4])
    else time = shift(time, step[1] === "-" ? -Number(step[2]) : Number(step[2]), step[3]!)
    rest = rest.slice(step[0].length)
  }
  return validDate(new Date(time))
}

const shift = (time: number, amount: number, unit: string) => {
  const date = new Date(time)
  if (unit === "y") date.setUTCFullYear(date.getUTCFullYear() + amount)
  else if (unit === "M") date.setUTCMonth(date.getUTCMonth() + amount)
  else return time + amount * unitMillis[unit === "H" ? "h" : unit]!
  return date.getTime()
}

const roundDown = (time: number, unit: string) => {
  const date = new Date(time)
  if (unit === "y") return Date.UTC(date.getUTCFullYear(), 0)
  if (unit === "M") return Date.UTC(date.getUTCFullYear(), date.getUTCMonth())
  if (unit === "w") {
    const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
    return day - ((date.getUTCDay() + 6) % 7) * unitMillis.d!
  }
  const size = unitMillis[unit === "H" ? "h" : unit]!
  return Math.floor(time / size) * size
}
