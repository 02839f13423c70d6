/**
 * `highlightText` against the algorithm it replaced (`highlightReference.ts`): the same fragments for generated
 * texts and queries, with limits, fragment sizes and fragment counts of every kind; then its bounds: work stops at
 * max_analyzed_offset, and pathological wildcards and regexps stay fast.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { bool, type HighlightField, type Query } from "../../../src/search/postgres/dsl/Ast.ts"
import { highlightText } from "../../../src/search/postgres/dsl/Highlight.ts"
import { translateRegexp } from "../../../src/search/postgres/dsl/Patterns.ts"
import { type Random, seeded } from "./generate.ts"
import { referenceHighlight } from "./highlightReference.ts"

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
const phrase = (text: string): Query => ({ _tag: "Phrase", field: "content", text, slop: 0 })
const onContent = (pattern: string): Query => ({ _tag: "Wildcard", field: "content", pattern, caseInsensitive: false })

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

  it("gives the same fragments as the reference on long texts whose matches lie far apart", () => {
    // Stretches of words no query seeks, with or without sentence ends, and long runs of the units a sentence end is
    // made of: the highlighter looks for a far match's sentence from shortly before it, and must find the same one.
    const random = seeded(20_261_127)
    const filler = ["lorem", "ipsum", "dolor", "sit", "amet"]
    const stretch = (separator: () => string) => {
      let text = ""
      for (let n = 200 + below(random, 1_500); n > 0; n--) text += pick(random, filler) + separator()
      return text
    }
    let highlighted = 0
    for (let i = 0; i < 300; i++) {
      let text = ""
      for (const target = 5_000 + below(random, 30_000); text.length < target;) {
        const kind = below(random, 4)
        if (kind === 0) text += `${randomText(random)} `
        else if (kind === 1) text += stretch(() => " ")
        else if (kind === 2) text += stretch(() => pick(random, separators))
        else text += pick(random, ['. ) ] "\n', "...   ", '!?"\n\n', " ", "\u00a0.", ".  \n  ", "x.  \n"]).repeat(1 + below(random, 600))
      }
      const query = randomClause(random, "content")
      // Passages longer than the stretch looked at before a far match, too.
      const options = { ...randomField(random, text), fragmentSize: pick(random, [50, 280, 1_500, 5_000]) }
      const expected = referenceHighlight(text, query, options)
      expect({ i, query, options, fragments: highlightText(text, query, options) }).toEqual({ i, query, options, fragments: expected })
      if (expected.some((fragment) => fragment.includes("<em>"))) highlighted++
    }
    expect(highlighted).toBeGreaterThan(100)
  })

  it("takes a text without a unit a sentence end starts with as one sentence, as the reference does", () => {
    const random = seeded(20_261_128)
    const unpunctuated = separators.filter((separator) => !/[.!?\n]/.test(separator))
    let highlighted = 0
    for (let i = 0; i < 100; i++) {
      let text = ""
      for (const target = below(random, 40_000); text.length < target;) text += pick(random, vocabulary) + pick(random, unpunctuated)
      const query = randomClause(random, "content")
      const options = { ...randomField(random, text), fragmentSize: pick(random, [50, 280, 1_500]) }
      const expected = referenceHighlight(text, query, options)
      expect({ i, query, options, fragments: highlightText(text, query, options) }).toEqual({ i, query, options, fragments: expected })
      if (expected.some((fragment) => fragment.includes("<em>"))) highlighted++
    }
    expect(highlighted).toBeGreaterThan(30)
  })

  it("starts a far match's passage at its sentence's start, wherever that lies before it", () => {
    const options = field({ fragmentSize: 2_000, numberOfFragments: 1 })
    const query = match("fox")
    // Words and spaces only, ending with a space.
    const noEnds = (length: number) => `${"lorem ".repeat(Math.ceil(length / 6)).slice(0, length - 1)} `
    // The sentence starts 2,400 characters before the match, past the stretch looked at first, with no end between.
    const far = `${"lorem. ".repeat(600)}${noEnds(2_400)}fox lorem. lorem`
    const wide = field({ fragmentSize: 5_000, numberOfFragments: 1 })
    expect(highlightText(far, query, wide)).toEqual([`${noEnds(2_400)}<em>fox</em> lorem. lorem`])
    // The stretch looked at first begins inside a sentence end, after its dot: the end is found from where it begins,
    // and the passage takes the next sentence, which ends exactly fragment_size characters after the match's start.
    const boundary = "x.  \n  "
    const before = noEnds(4_200) + boundary
    const matchAt = before.length - 3 + 1_024
    const sentenceStart = before.length
    const upToMatch = noEnds(matchAt - sentenceStart)
    const upToNextEnd = noEnds(sentenceStart + 2_000 - matchAt - "fox lorem. ".length - 2)
    const inside = `${before}${upToMatch}fox lorem. ${upToNextEnd}. ${noEnds(3_000)}.`
    expect(inside.indexOf("fox")).toBe(matchAt)
    expect(inside.indexOf(". ", matchAt + 10) + 2).toBe(sentenceStart + 2_000)
    expect(highlightText(inside, query, options)).toEqual([`${upToMatch}<em>fox</em> lorem. ${upToNextEnd}.`])
    expect(highlightText(far, query, wide)).toEqual(referenceHighlight(far, query, wide))
    expect(highlightText(inside, query, options)).toEqual(referenceHighlight(inside, query, options))
  })

  it("marks the same words as the reference for 1,500 generated regexps and wildcards, case-insensitive ones too", () => {
    const random = seeded(7)
    const text = `${vocabulary.join(" ")} fooo foxo doxa aaab ab b a.b x-ray ${"ab".repeat(30)} Ab AB aB`
    for (let i = 0; i < 1_500; i++) {
      const pattern = Effect.runSync(Effect.option(translateRegexp(randomRegexp(random))))
      const query: Query =
        i % 3 === 0 || pattern._tag === "None"
          ? onContent(randomWildcard(random))
          : { _tag: "Regexp", field: "content", pattern: pattern.value, caseInsensitive: random() < 0.5 }
      const options = field({ numberOfFragments: 0 })
      expect({ query, fragments: highlightText(text, query, options) }).toEqual({
        query,
        fragments: referenceHighlight(text, query, options)
      })
    }
  })

  it("finds whole words, exact phrases and words starting with a prefix only, as the reference does, where they are sought with the native string search", () => {
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
      const words = () =>
        random() < 0.5
          ? match(pick(random, ["fox", "kelvin fine", "x fox", "fox1 1fox", "ﬁne"]))
          : phrase(pick(random, ["fox kelvin", "fine fox", "x fox x", "fox fox", "ﬁne fine", "fox x"]))
      // Trailing-star wildcards of ASCII letters and digits are sought natively too, alone or beside words.
      const prefix = () => onContent(pick(random, ["fo*", "FO*", "fox*", "k*", "fi*", "x*", "1*", "i*"]))
      const query = random() < 0.6 ? words() : bool({ should: random() < 0.5 ? [prefix()] : [prefix(), words()] })
      const options = field({ numberOfFragments: 0, maxAnalyzedOffset: random() < 0.3 ? below(random, text.length + 2) + 1 : undefined })
      expect({ text, query, fragments: highlightText(text, query, options) }).toEqual({
        text,
        query,
        fragments: referenceHighlight(text, query, options)
      })
    }
  })

  it("marks the words a fuzzy term matches, a transposition counting one edit as Lucene counts it", () => {
    const fuzzy = (value: string, distance: number): Query => ({ _tag: "Fuzzy", field: "content", value, distance })
    const text = "The form was sent from Paris. Farm news."
    // "form" is one transposition from "from" (two edits without transpositions); "farm" is two substitutions away.
    expect(highlightText(text, fuzzy("from", 1), field())).toEqual(["The <em>form</em> was sent <em>from</em> Paris. Farm news."])
    expect(highlightText(text, fuzzy("from", 2), field())).toEqual(["The <em>form</em> was sent <em>from</em> Paris. <em>Farm</em> news."])
  })

  it("marks each text's own words when one query highlights several texts, whose tested words it keeps", () => {
    const query = bool({ should: [{ _tag: "Fuzzy", field: "content", value: "from", distance: 1 }, onContent("fa*m")] })
    for (const text of ["The form was sent from Paris.", "Farm news from the frame.", "Nothing here.", "FROM form farm"]) {
      expect(highlightText(text, query, field())).toEqual(referenceHighlight(text, query, field()))
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
