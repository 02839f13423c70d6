/**
 * The reference the highlighter is tested against: `highlightText` as it was before it was bounded and made fast
 * (a verbatim copy). It folds every word of the text and finds every sentence, which is slow but plainly right.
 */
import type { HighlightField, Query } from "../../../src/search/postgres/dsl/Ast.ts"
import { words as wordsOf } from "../../../src/search/postgres/dsl/Text.ts"
import { fold } from "../../../src/search/postgres/TextIndex.ts"

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

/** Lucene's fuzzy distance: Levenshtein with transpositions of neighbours (optimal string alignment), over code points. */
const editDistanceAtMost = (a: string, b: string, max: number) => {
  const [x, y] = [[...a], [...b]]
  const table = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++) {
      const row = table[i]!
      row[j] = Math.min(table[i - 1]![j]! + 1, row[j - 1]! + 1, table[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) row[j] = Math.min(row[j]!, table[i - 2]![j - 2]! + 1)
    }
  return table[x.length]![y.length]! <= max
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

export const referenceHighlight = (text: string, query: Query, field: HighlightField): ReadonlyArray<string> => {
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
