/**
 * `highlightText` against the algorithm it replaced (kept below as the reference): the same fragments for generated
 * texts and queries, with limits, fragment sizes and fragment counts of every kind; then its bounds: work stops at
 * max_analyzed_offset, and pathological wildcards and regexps stay fast.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { HighlightField, Query } from "../../../src/search/postgres/dsl/Ast.ts"
import { highlightText } from "../../../src/search/postgres/dsl/Highlight.ts"
import { translateRegexp } from "../../../src/search/postgres/dsl/Patterns.ts"
import { words as wordsOf } from "../../../src/search/postgres/dsl/Text.ts"
import { fold } from "../../../src/search/postgres/TextIndex.ts"
import { type Random, seeded } from "./generate.ts"

// ---- The reference: highlightText as it was before it was bounded and made fast (a verbatim copy). ----

type WordMatcher = (word: string) => boolean

interface Matchers {
  readonly words: Array<WordMatcher>
  readonly phrases: Array<ReadonlyArray<string>>
}

const likeToRegExp = (pattern: string) => {
  let out = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) out += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
    else if (c === "*") out += ".*"
    else if (c === "?") out += "."
    else out += c.replace(/[.+^${}()|[\]\\/]/g, "\\$&")
  }
  return new RegExp(`^${out}$`, "u")
}

const editDistanceAtMost = (a: string, b: string, max: number) => {
  if (Math.abs(a.length - b.length) > max) return false
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    previous = current
  }
  return previous[b.length]! <= max
}

const collect = (query: Query, field: string, into: Matchers) => {
  switch (query._tag) {
    case "Bool":
      ;[...query.must, ...query.filter, ...query.should].forEach((clause) => collect(clause, field, into))
      return
    case "Match":
    case "Terms": {
      if (query.field !== field) return
      const text = query._tag === "Match" ? query.text : query.values.map(String).join(" ")
      const set = new Set(wordsOf(fold(text)))
      into.words.push((word) => set.has(word))
      return
    }
    case "Phrase": {
      if (query.field !== field) return
      const phrase = wordsOf(fold(query.text))
      if (query.slop === 0 && phrase.length > 1) into.phrases.push(phrase)
      else {
        const set = new Set(phrase)
        into.words.push((word) => set.has(word))
      }
      return
    }
    case "Wildcard": {
      if (query.field !== field) return
      const regexp = likeToRegExp(fold(query.pattern))
      into.words.push((word) => regexp.test(word))
      return
    }
    case "Regexp": {
      if (query.field !== field) return
      const regexp = new RegExp(query.pattern, query.caseInsensitive ? "i" : "")
      into.words.push((word) => regexp.test(word))
      return
    }
    case "Fuzzy": {
      if (query.field !== field) return
      const term = fold(query.value)
      into.words.push((word) => editDistanceAtMost(word, term, query.distance))
      return
    }
    default:
      return
  }
}

interface Span {
  readonly start: number
  readonly end: number
}

const matches = (text: string, matchers: Matchers, limit: number): ReadonlyArray<Span> => {
  const tokens = [...text.matchAll(/[\p{L}\p{N}]+/gu)]
    .filter((token) => token.index < limit)
    .map((token) => ({ start: token.index, end: token.index + token[0].length, word: fold(token[0]) }))
  const marked = new Array<boolean>(tokens.length).fill(false)
  tokens.forEach((token, index) => (marked[index] = matchers.words.some((matcher) => matcher(token.word))))
  for (const phrase of matchers.phrases) {
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      if (phrase.every((word, offset) => tokens[i + offset]!.word === word)) for (let j = 0; j < phrase.length; j++) marked[i + j] = true
    }
  }
  return tokens.filter((_, index) => marked[index])
}

const sentences = (text: string): ReadonlyArray<Span> => {
  const spans: Array<Span> = []
  let start = 0
  for (const boundary of text.matchAll(/[.!?]+["')\]]*\s+|\n+/g)) {
    const end = boundary.index + boundary[0].length
    spans.push({ start, end })
    start = end
  }
  if (start < text.length) spans.push({ start, end: text.length })
  return spans
}

const wordEndAfter = (text: string, position: number) => {
  const next = /[^\p{L}\p{N}]/u.exec(text.slice(position))
  return next === null ? text.length : position + next.index
}

const passageAround = (text: string, all: ReadonlyArray<Span>, match: Span, size: number): Span => {
  const index = all.findIndex((sentence) => match.start < sentence.end)
  const sentence = all[index]!
  let start = sentence.start
  if (match.end - start > size) start = match.start
  let end = sentence.end
  for (let next = index + 1; next < all.length && all[next]!.end - start <= size; next++) end = all[next]!.end
  if (end - start > size) end = Math.max(wordEndAfter(text, start + size), match.end)
  return { start, end }
}

const mark = (text: string, span: Span, spans: ReadonlyArray<Span>, field: HighlightField) => {
  let out = ""
  let position = span.start
  for (const match of spans) {
    out += text.slice(position, match.start) + field.preTag + text.slice(match.start, match.end) + field.postTag
    position = match.end
  }
  return (out + text.slice(position, span.end)).trim()
}

const noMatch = (text: string, size: number) => {
  if (size <= 0 || text.trim() === "") return []
  if (text.length <= size) return [text.trim()]
  const cut = text.slice(0, size + 1).search(/\s\S*$/)
  return [text.slice(0, cut > 0 ? cut : size).trim()]
}

const referenceHighlight = (text: string, query: Query, field: HighlightField): ReadonlyArray<string> => {
  const matchers: Matchers = { words: [], phrases: [] }
  collect(query, field.field, matchers)
  const found = matches(text, matchers, field.maxAnalyzedOffset ?? Infinity)
  if (found.length === 0) return noMatch(text, field.noMatchSize)
  if (field.numberOfFragments === 0) return [mark(text, { start: 0, end: text.length }, found, field)]
  const all = sentences(text)
  const passages: Array<{ span: Span; matches: Array<Span> }> = []
  for (const match of found) {
    const last = passages[passages.length - 1]
    if (last !== undefined && match.start >= last.span.start && match.end <= last.span.end) last.matches.push(match)
    else passages.push({ span: passageAround(text, all, match, field.fragmentSize), matches: [match] })
  }
  const best = passages
    .map((passage, order) => ({ ...passage, order }))
    .sort((a, b) => b.matches.length - a.matches.length || a.order - b.order)
    .slice(0, field.numberOfFragments)
    .sort((a, b) => a.order - b.order)
  return best.map((passage) => mark(text, passage.span, passage.matches, field))
}

// ---- Generated texts and queries ----

const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
const below = (random: Random, max: number) => Math.floor(random() * max)

/** English-like words, accented ones (folding), a ligature, other scripts, a letter beyond U+FFFF, digits. */
const vocabulary = [
  "the",
  "of",
  "and",
  "to",
  "a",
  "in",
  "is",
  "that",
  "for",
  "it",
  "was",
  "with",
  "fox",
  "foxes",
  "quick",
  "brown",
  "lazy",
  "dog",
  "dogs",
  "report",
  "board",
  "café",
  "Café",
  "CAFE",
  "crème",
  "brûlée",
  "naïve",
  "Straße",
  "ﬁne",
  "fine",
  "Ελληνικά",
  "ελληνικα",
  "Москва",
  "東京",
  "𠀀𠀁",
  "2024",
  "x1",
  "I",
  "İstanbul",
  "Ａｂｃ",
  "abc"
]
const separators = [
  " ",
  " ",
  " ",
  " ",
  ", ",
  ". ",
  ". ",
  "! ",
  "? ",
  '." ',
  ".) ",
  "...",
  "\n",
  "\n\n",
  " - ",
  "'s ",
  " 😀 ",
  "\t",
  ".\n",
  "?!  "
]

const randomText = (random: Random) => {
  const shape = below(random, 4)
  const length = shape === 0 ? below(random, 40) : shape === 1 ? below(random, 400) : below(random, 3_000)
  // Some texts have long stretches without a sentence end, longer than fragment_size.
  const longSentences = random() < 0.3
  let text = random() < 0.2 ? pick(random, ["  ", "\n", ". "]) : ""
  while (text.length < length) {
    text += pick(random, vocabulary)
    text += longSentences && random() < 0.9 ? " " : pick(random, separators)
  }
  return random() < 0.5 ? text.trimEnd() : text
}

const regexpPieces = ["a", "b", "o", "x", ".", "[a-f]", "[^x]", "[éè]", "(fo|do)", "(a|b)", "\\.", "[0-9]", "e", "s", "q"]
const quantifiers = ["", "", "", "*", "+", "?", "{1,2}", "{2}", "{0,3}", "{1,}"]

const randomRegexp = (random: Random) => {
  let pattern = ""
  const pieces = 1 + below(random, 5)
  for (let i = 0; i < pieces; i++) pattern += pick(random, regexpPieces) + pick(random, quantifiers)
  return random() < 0.2 ? `${pattern}|${pick(random, vocabulary)}` : pattern
}

const randomWildcard = (random: Random) => {
  const word = pick(random, vocabulary)
  const shape = below(random, 6)
  if (shape === 0) return `${word.slice(0, 2)}*`
  if (shape === 1) return `*${word.slice(-2)}`
  if (shape === 2) return `${word.slice(0, 1)}?${word.slice(2)}`
  if (shape === 3) return `*${word.slice(1, 2)}*`
  if (shape === 4) return `${word}\\*`
  return word.replace(/./gu, (c) => (random() < 0.3 ? "?" : c))
}

const randomClause = (random: Random, field: string): Query => {
  const word = () => pick(random, vocabulary)
  switch (below(random, 8)) {
    case 0:
      return { _tag: "Match", field, text: `${word()} ${random() < 0.5 ? word() : ""}`, operator: "or" }
    case 1:
      return { _tag: "Terms", field, values: [word(), word()], caseInsensitive: false }
    case 2:
      return { _tag: "Phrase", field, text: `${word()} ${word()}${random() < 0.3 ? ` ${word()}` : ""}`, slop: random() < 0.8 ? 0 : 1 }
    case 3:
      return { _tag: "Wildcard", field, pattern: randomWildcard(random), caseInsensitive: false }
    case 4:
      return { _tag: "Fuzzy", field, value: word().replace(/^./u, (c) => (random() < 0.5 ? "z" : c)), distance: below(random, 3) }
    case 5: {
      const pattern = Effect.runSync(Effect.option(translateRegexp(randomRegexp(random))))
      return pattern._tag === "Some"
        ? { _tag: "Regexp", field, pattern: pattern.value, caseInsensitive: random() < 0.3 }
        : { _tag: "MatchAll" }
    }
    case 6:
      return { _tag: "Match", field: "path", text: word(), operator: "or" }
    default:
      return {
        _tag: "Bool",
        must: [randomClause(random, field)],
        filter: [],
        should: [randomClause(random, field)],
        mustNot: [randomClause(random, field)],
        minimumShouldMatch: undefined
      }
  }
}

const randomField = (random: Random, text: string): HighlightField => ({
  field: "content",
  preTag: "<em>",
  postTag: "</em>",
  fragmentSize: pick(random, [0, 1, 10, 30, 50, 100, 280]),
  numberOfFragments: pick(random, [0, 1, 2, 3, 5]),
  noMatchSize: pick(random, [0, 0, 5, 20, 100]),
  maxAnalyzedOffset: random() < 0.5 ? undefined : 1 + below(random, text.length + 5)
})

const field = (options: Partial<HighlightField> = {}): HighlightField => ({
  field: "content",
  preTag: "<em>",
  postTag: "</em>",
  fragmentSize: 100,
  numberOfFragments: 5,
  noMatchSize: 0,
  maxAnalyzedOffset: undefined,
  ...options
})

const match = (text: string): Query => ({ _tag: "Match", field: "content", text, operator: "or" })

/** The fastest of a few runs, in milliseconds: the work itself, without the pauses a busy machine adds. */
const fastest = (run: () => unknown, runs = 3) => {
  let best = Infinity
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    run()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

describe("highlightText", () => {
  it("gives the same fragments as the reference algorithm on 4,000 generated texts and queries", () => {
    const random = seeded(20_251_126)
    let highlighted = 0
    for (let i = 0; i < 4_000; i++) {
      const text = randomText(random)
      const query = randomClause(random, "content")
      const options = randomField(random, text)
      const expected = referenceHighlight(text, query, options)
      expect({ i, text, query, options, fragments: highlightText(text, query, options) }).toEqual({
        i,
        text,
        query,
        options,
        fragments: expected
      })
      if (expected.some((fragment) => fragment.includes("<em>"))) highlighted++
    }
    // The generator is only worth something if a good share of the cases highlight words.
    expect(highlighted).toBeGreaterThan(1_500)
  })

  it("marks the same words as the reference for 1,500 generated regexps and wildcards, case-insensitive ones too", () => {
    const random = seeded(7)
    const text = `${vocabulary.join(" ")} fooo foxo doxa aaab ab b a.b x-ray ${"ab".repeat(30)} Ab AB aB`
    for (let i = 0; i < 1_500; i++) {
      const pattern = Effect.runSync(Effect.option(translateRegexp(randomRegexp(random))))
      const query: Query =
        i % 3 === 0 || pattern._tag === "None"
          ? { _tag: "Wildcard", field: "content", pattern: randomWildcard(random), caseInsensitive: false }
          : { _tag: "Regexp", field: "content", pattern: pattern.value, caseInsensitive: random() < 0.5 }
      const options = field({ numberOfFragments: 0 })
      expect({ query, fragments: highlightText(text, query, options) }).toEqual({
        query,
        fragments: referenceHighlight(text, query, options)
      })
    }
  })

  it("finds whole words only, as the reference does, where words are sought with the native string search", () => {
    // Sought words inside longer words, beside digits, letters beyond U+FFFF and units that fold to ASCII (the
    // Kelvin sign, fullwidth letters, a ligature), U+0130, whose lower case is two units long, and words with accents
    // after an ASCII first letter, whether or not a sought word starts with it.
    const pieces = [
      "fóx",
      "FÓX",
      "kélvin",
      "fine\u0301",
      "bóx",
      "fox",
      "afox",
      "foxa",
      "FOX",
      "Fox1",
      "1fox",
      "ÿfox",
      "foxÿ",
      "𠀀fox",
      "fox𠀀",
      "\u212Aelvin",
      "kelvin",
      "Ｆｏｘ",
      "ﬁne",
      "fine",
      "İfox",
      "x"
    ]
    const random = seeded(11)
    for (let i = 0; i < 1_000; i++) {
      let text = ""
      for (let n = below(random, 30); n > 0; n--) text += pick(random, pieces) + pick(random, [" ", "", ". ", "😀", "-"])
      const query = match(pick(random, ["fox", "kelvin fine", "x fox", "fox1 1fox", "ﬁne"]))
      const options = field({ numberOfFragments: 0, maxAnalyzedOffset: random() < 0.3 ? below(random, text.length + 2) + 1 : undefined })
      expect({ text, query, fragments: highlightText(text, query, options) }).toEqual({
        text,
        query,
        fragments: referenceHighlight(text, query, options)
      })
    }
  })

  it("counts a word cut by max_analyzed_offset whole, and ignores words starting after it", () => {
    const text = "alpha beta gamma delta. gamma again."
    const query = match("gamma delta")
    for (const limit of [1, 6, 12, 13, 14, 16, 17, 18, 30]) {
      const options = field({ maxAnalyzedOffset: limit })
      expect(highlightText(text, query, options)).toEqual(referenceHighlight(text, query, options))
    }
    expect(highlightText(text, query, field({ maxAnalyzedOffset: 14 }))).toEqual(["alpha beta <em>gamma</em> delta. gamma again."])
    expect(highlightText(text, query, field({ maxAnalyzedOffset: 18 }))).toEqual(["alpha beta <em>gamma</em> <em>delta</em>. gamma again."])
    expect(highlightText(text, query, field({ maxAnalyzedOffset: 11, noMatchSize: 10 }))).toEqual(["alpha beta"])
  })

  it("gives no_match_size characters when nothing matches, and the whole text marked with number_of_fragments 0", () => {
    const text = "The quick brown fox. It jumps over the lazy dog.\nThe end."
    expect(highlightText(text, match("cat"), field({ noMatchSize: 15 }))).toEqual(["The quick brown"])
    expect(highlightText(text, match("cat"), field())).toEqual([])
    expect(highlightText(text, { _tag: "MatchAll" }, field({ noMatchSize: 200 }))).toEqual([text.trim()])
    expect(highlightText(text, match("the"), field({ numberOfFragments: 0 }))).toEqual([
      "<em>The</em> quick brown fox. It jumps over <em>the</em> lazy dog.\n<em>The</em> end."
    ])
  })

  it("looks at the first 1,000,000 characters when the request sets no max_analyzed_offset", () => {
    const text = `${"filler words here. ".repeat(60_000)}needle at the end.`
    expect(text.length).toBeGreaterThan(1_000_000)
    expect(highlightText(text, match("needle"), field({ noMatchSize: 12 }))).toEqual(["filler words"])
    expect(highlightText(text, match("needle"), field({ maxAnalyzedOffset: 2_000_000 }))).toEqual(["<em>needle</em> at the end."])
  })

  it("highlights a 5 MB text with a match near its start in under 100 ms", () => {
    const text = `The needle is here. ${"Plenty of other words follow, sentence after sentence. ".repeat(95_000)}`
    expect(text.length).toBeGreaterThan(5_000_000)
    // Compiled code is what serves a busy server: warm it up on the first million characters, the part analysed.
    for (let i = 0; i < 3; i++) highlightText(text.slice(0, 1_000_000), match("needle"), field())
    let fragments: ReadonlyArray<string> = []
    const took = fastest(() => (fragments = highlightText(text, match("needle"), field())))
    expect(fragments).toEqual(["The <em>needle</em> is here. Plenty of other words follow, sentence after sentence."])
    expect(took).toBeLessThan(100)
  })

  it("answers a 2 MB text whose only match lies after 1,000,000 characters with its no-match fragment, quickly", () => {
    const text = `${"Nothing to see in this sentence. ".repeat(31_000)}The needle. ${"More words. ".repeat(90_000)}`
    expect(text.indexOf("needle")).toBeGreaterThan(1_000_000)
    expect(text.length).toBeGreaterThan(2_000_000)
    let fragments: ReadonlyArray<string> = []
    const took = fastest(() => (fragments = highlightText(text, match("needle"), field({ noMatchSize: 20 }))))
    expect(fragments).toEqual(["Nothing to see in"])
    expect(took).toBeLessThan(100)
  })

  it("matches pathological wildcards and regexps in time proportional to the word", () => {
    const text = `${"a".repeat(500)} ${"a".repeat(40)}b end`
    const wildcard: Query = { _tag: "Wildcard", field: "content", pattern: "*a*a*a*a*a*b", caseInsensitive: false }
    let took = fastest(() => expect(highlightText(text, wildcard, field({ fragmentSize: 10 }))).toEqual([`<em>${"a".repeat(40)}b</em>`]))
    expect(took).toBeLessThan(100)
    for (const lucene of ["(a|a)*", "(a+)+", "(a*)*b", "(.*a){20}"]) {
      const pattern = Effect.runSync(translateRegexp(lucene))
      const regexp: Query = { _tag: "Regexp", field: "content", pattern, caseInsensitive: false }
      took = fastest(() => highlightText(text, regexp, field({ numberOfFragments: 0 })))
      expect(took).toBeLessThan(100)
    }
    const ab = Effect.runSync(translateRegexp("(a|a)*b"))
    expect(
      highlightText(text, { _tag: "Regexp", field: "content", pattern: ab, caseInsensitive: false }, field({ fragmentSize: 10 }))
    ).toEqual([`<em>${"a".repeat(40)}b</em>`])
  })
})
