import type { HighlightField, Query } from "./Ast.ts"
import { type Found, matchedWords, wordEndAfter } from "./HighlightWords.ts"

/**
 * Highlighting of `content` as ES's unified highlighter gives it: passages are sentences (a sentence longer than
 * fragment_size is cut at a word boundary), extended by the following sentences while they fit in fragment_size;
 * the best-scoring passages are kept and returned in text order with every matched word wrapped in the tags.
 *
 * Only words starting in the first `max_analyzed_offset` characters are looked at (matches after them are ignored),
 * and the text is read no further than needed: to the end of the last of those words, then around the passages.
 */

/** ES's default `index.highlight.max_analyzed_offset`, for requests that set no limit of their own. */
const defaultMaxAnalyzedOffset = 1_000_000

interface Span {
  readonly start: number
  readonly end: number
}

/** A sentence boundary: `.`, `!` or `?` then spaces, or line breaks. One object, its position set before each search. */
const sentenceBoundary = /[.!?]+["')\]]*\s+|\n+/g

/** Where the first sentence boundary from `from` in `text` ends, if any. */
const boundaryEndFrom = (text: string, from: number) => {
  sentenceBoundary.lastIndex = from
  return sentenceBoundary.exec(text) === null ? undefined : sentenceBoundary.lastIndex
}

/**
 * Whether a sentence boundary can start anywhere in `text`: `.`, `!`, `?` or a line break, each looked for natively.
 * The expression alone crossed a text without them unit by unit to find no boundary (0.7 ms a search on pages of
 * generated documents, which hold none).
 */
const mayHoldBoundary = (text: string) => [".", "!", "?", "\n"].some((unit) => text.includes(unit))

/** A unit a sentence boundary can hold: where the unit before a place is none of these, no boundary runs across it. */
const boundaryUnit = /[.!?"')\]\s]/

/** A match further than this past the last sentence end found has its sentence looked for from a little before it. */
const jumpDistance = 4_096
/** How far before such a match its sentence's start is looked for first. */
const lookBehind = 1_024

/**
 * The ends of a text's sentences, in order: a sentence ends after `.`, `!` or `?` followed by spaces, or at a line
 * break, and the last one with the text. They are found as matches ask for them, which come in text order, and only
 * in the first `scopeEnd` characters: an end at or past that cut may come out wrong (cut short, or as the text's
 * end), which changes nothing as callers only ask whether such an end is past the passage they fill.
 * A match far past the last end found has its sentence's start looked for between it and a place shortly before it
 * that no boundary runs across, which finds the same ends as a search from the text's start (each boundary is found
 * from where it begins); only when no end lies there is the stretch before searched. Indexes are into the ends
 * found, which are the text's own ends from the last one before the match.
 */
const sentenceEnds = (text: string, scopeEnd: number) => {
  const scope = text.slice(0, scopeEnd)
  // Without a unit a boundary starts with, the text is one sentence.
  let searched = !mayHoldBoundary(scope)
  const ends: Array<number> = searched ? [text.length] : []
  let searchFrom = 0
  let first = 0 // the index of the first end after the last match asked about
  const findNext = () => {
    const end = boundaryEndFrom(scope, searchFrom)
    if (end !== undefined) {
      searchFrom = end
      ends.push(end)
      return
    }
    searched = true
    if (ends[ends.length - 1] !== text.length) ends.push(text.length)
  }
  const jumpNear = (position: number) => {
    let from = position - lookBehind
    while (from > searchFrom && boundaryUnit.test(text[from - 1]!)) from--
    if (from <= searchFrom) return
    // Up to the match's first unit, so that a boundary ending before the match ends there in the whole text too.
    const end = boundaryEndFrom(scope.slice(from, position + 1), 0)
    if (end === undefined || from + end > position) return
    searchFrom = from + end
    ends.push(searchFrom)
  }
  return {
    /** The index of the first end past `position` (positions asked about never decrease). */
    firstAfter: (position: number) => {
      if (!searched && position - searchFrom > jumpDistance) jumpNear(position)
      while (!searched && (ends.length === 0 || ends[ends.length - 1]! <= position)) findNext()
      while (ends[first]! <= position) first++
      return first
    },
    /** The end of index `k`, or undefined past the last. */
    at: (k: number): number | undefined => {
      while (ends.length <= k && !searched) findNext()
      return ends[k]
    }
  }
}

/** The passage of a match: its sentence, with the following ones while they fit in `size`. */
const passageAround = (text: string, sentences: ReturnType<typeof sentenceEnds>, match: Span, size: number): Span => {
  const sentence = sentences.firstAfter(match.start)
  let start = sentence === 0 ? 0 : sentences.at(sentence - 1)!
  if (match.end - start > size) start = match.start
  let end = sentences.at(sentence)!
  for (let next = sentence + 1; ; next++) {
    const nextEnd = sentences.at(next)
    if (nextEnd === undefined || nextEnd - start > size) break
    end = nextEnd
  }
  if (end - start > size) end = Math.max(wordEndAfter(text, start + size), match.end)
  return { start, end }
}

/** A passage and its matches: found matches `first` to `first + count - 1`. */
interface Passage extends Span {
  readonly first: number
  count: number
}

const mark = (text: string, span: Span, found: Found, first: number, count: number, field: HighlightField) => {
  let out = ""
  let position = span.start
  for (let index = first; index < first + count; index++) {
    const start = found.starts[index]!
    const end = found.ends[index]!
    out += text.slice(position, start) + field.preTag + text.slice(start, end) + field.postTag
    position = end
  }
  return (out + text.slice(position, span.end)).trim()
}

const noMatch = (text: string, size: number) => {
  if (size <= 0 || text.trim() === "") return []
  if (text.length <= size) return [text.trim()]
  const cut = text.slice(0, size + 1).search(/\s\S*$/)
  return [text.slice(0, cut > 0 ? cut : size).trim()]
}

export const highlightText = (text: string, query: Query, field: HighlightField): ReadonlyArray<string> => {
  const found = matchedWords(text, query, field.field, field.maxAnalyzedOffset ?? defaultMaxAnalyzedOffset)
  const count = found.starts.length
  if (count === 0) return noMatch(text, field.noMatchSize)
  if (field.numberOfFragments === 0) return [mark(text, { start: 0, end: text.length }, found, 0, count, field)]
  const size = field.fragmentSize
  // A passage starts before its match, and of a sentence end only whether it lies past start + size matters: ends
  // past the last match's end + size need not be found.
  const sentences = sentenceEnds(text, Math.min(text.length, found.ends[count - 1]! + size))
  const passages: Array<Passage> = []
  for (let index = 0; index < count; index++) {
    const match = { start: found.starts[index]!, end: found.ends[index]! }
    const last = passages[passages.length - 1]
    if (last !== undefined && match.start >= last.start && match.end <= last.end) last.count++
    else passages.push({ ...passageAround(text, sentences, match, size), first: index, count: 1 })
  }
  const best = passages
    .map((_, order) => order)
    .sort((a, b) => passages[b]!.count - passages[a]!.count || a - b)
    .slice(0, field.numberOfFragments)
    .sort((a, b) => a - b)
  return best.map((order) => {
    const passage = passages[order]!
    return mark(text, passage, found, passage.first, passage.count, field)
  })
}
