import { Effect } from "effect"
import type { SearchRequestError } from "./Errors.ts"

/** The tokens of Lucene's classic query syntax, as `query_string` reads them (QueryString.ts parses them). */

export type Token =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Close" }
  | { readonly _tag: "And" }
  | { readonly _tag: "Or" }
  | { readonly _tag: "Not" }
  | { readonly _tag: "Plus" }
  | { readonly _tag: "Minus" }
  | { readonly _tag: "Field"; readonly name: string }
  | { readonly _tag: "Comparison"; readonly operator: ">" | ">=" | "<" | "<=" }
  /** A bare word; `raw` keeps escapes for wildcard patterns, `text` is unescaped. */
  | { readonly _tag: "Word"; readonly raw: string; readonly text: string; readonly fuzzy: number | undefined }
  | { readonly _tag: "Phrase"; readonly text: string; readonly slop: number }
  | { readonly _tag: "Range"; readonly from: string; readonly to: string; readonly includeFrom: boolean; readonly includeTo: boolean }
  | { readonly _tag: "Regexp"; readonly pattern: string }

const isSpace = (c: string) => /\s/.test(c)
/** Characters that end a word unless escaped (Lucene's term characters exclude them). */
const special = new Set(["(", ")", ":", "^", "[", "]", '"', "{", "}", "~", "\\", "/", " ", "\t", "\n", "\r", "\u3000"])

/** `~N`, `~` (automatic), or `^N` after a word or phrase. */
const readSuffixNumber = (input: string, start: number) => {
  let end = start
  while (end < input.length && /[0-9.]/.test(input[end]!)) end++
  return { text: input.slice(start, end), end }
}

export const tokenize = (input: string, fail: (reason: string) => SearchRequestError) =>
  Effect.gen(function* () {
    const tokens: Array<Token> = []
    let i = 0
    const skipBoost = () =>
      Effect.gen(function* () {
        if (input[i] !== "^") return
        const { text, end } = readSuffixNumber(input, i + 1)
        if (text === "" || Number.isNaN(Number(text))) return yield* fail(`invalid boost at position ${i}`)
        i = end
      })
    while (i < input.length) {
      const c = input[i]!
      if (isSpace(c)) {
        i++
        continue
      }
      if (c === "(" || c === ")") {
        tokens.push({ _tag: c === "(" ? "Open" : "Close" })
        i++
        if (c === ")") yield* skipBoost()
        continue
      }
      if (c === "+" || c === "-" || c === "!") {
        tokens.push({ _tag: c === "+" ? "Plus" : c === "-" ? "Minus" : "Not" })
        i++
        continue
      }
      if (input.startsWith("&&", i) || input.startsWith("||", i)) {
        tokens.push({ _tag: c === "&" ? "And" : "Or" })
        i += 2
        continue
      }
      if (c === ">" || c === "<") {
        const operator = input[i + 1] === "=" ? (`${c}=` as ">=" | "<=") : (c as ">" | "<")
        tokens.push({ _tag: "Comparison", operator })
        i += operator.length
        continue
      }
      if (c === '"') {
        let text = ""
        i++
        while (i < input.length && input[i] !== '"') {
          if (input[i] === "\\" && i + 1 < input.length) i++
          text += input[i]
          i++
        }
        if (i >= input.length) return yield* fail("unterminated phrase")
        i++
        let slop = 0
        if (input[i] === "~") {
          const { text: number, end } = readSuffixNumber(input, i + 1)
          slop = number === "" ? 0 : Math.floor(Number(number))
          if (Number.isNaN(slop)) return yield* fail("invalid phrase slop")
          i = end
        }
        yield* skipBoost()
        tokens.push({ _tag: "Phrase", text, slop })
        continue
      }
      if (c === "[" || c === "{") {
        const close = input.slice(i).search(/[\]}]/)
        if (close < 0) return yield* fail("unterminated range")
        const body = input.slice(i + 1, i + close).trim()
        const parts = /^(\S+|"[^"]*")\s+TO\s+(\S+|"[^"]*")$/.exec(body)
        if (parts === null) return yield* fail(`invalid range [${body}]`)
        const unquote = (value: string) => (value.startsWith('"') ? value.slice(1, -1) : value)
        tokens.push({
          _tag: "Range",
          from: unquote(parts[1]!),
          to: unquote(parts[2]!),
          includeFrom: c === "[",
          includeTo: input[i + close] === "]"
        })
        i += close + 1
        yield* skipBoost()
        continue
      }
      if (c === "/") {
        let pattern = ""
        i++
        while (i < input.length && input[i] !== "/") {
          if (input[i] === "\\" && i + 1 < input.length) pattern += input[i++]
          pattern += input[i]
          i++
        }
        if (i >= input.length) return yield* fail("unterminated regular expression")
        i++
        yield* skipBoost()
        tokens.push({ _tag: "Regexp", pattern })
        continue
      }
      if (c === ":" || c === "^" || c === "~" || c === "]" || c === "}") return yield* fail(`unexpected [${c}] at position ${i}`)
      let raw = ""
      let text = ""
      while (i < input.length && (!special.has(input[i]!) || input[i] === "\\")) {
        // An escaped character belongs to the word whatever it is.
        if (input[i] === "\\") {
          if (i + 1 >= input.length) return yield* fail("dangling escape at the end of the query")
          raw += input.slice(i, i + 2)
          text += input[i + 1]
          i += 2
        } else {
          raw += input[i]
          text += input[i]
          i++
        }
      }
      if (input[i] === ":") {
        tokens.push({ _tag: "Field", name: text })
        i++
        continue
      }
      if (raw === "AND" || raw === "OR" || raw === "NOT") {
        tokens.push({ _tag: raw === "AND" ? "And" : raw === "OR" ? "Or" : "Not" })
        continue
      }
      let fuzzy: number | undefined
      if (input[i] === "~") {
        const { text: number, end } = readSuffixNumber(input, i + 1)
        fuzzy = number === "" ? -1 : Number(number)
        if (Number.isNaN(fuzzy)) return yield* fail("invalid fuzziness")
        i = end
      }
      yield* skipBoost()
      tokens.push({ _tag: "Word", raw, text, fuzzy })
    }
    return tokens
  })
