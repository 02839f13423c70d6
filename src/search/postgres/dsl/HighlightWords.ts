import type { Query } from "./Ast.ts"
import { fold } from "../TextIndex.ts"
import { trailingStarPrefix } from "./Patterns.ts"
import { words as wordsOf } from "./Text.ts"
import { editDistance, regexpMatcher, wildcardMatches, wildcardParts, type WordMatcher } from "./WordPatterns.ts"

/**
 * The words of a text a highlight marks, as the content's tsvector has words (runs of `[\p{L}\p{N}]`, folded): those
 * a query's positive clauses look for in the field, and the runs of words its exact phrases spell. Only words
 * starting before a limit count (a word running across it counts whole).
 */

interface Matchers {
  /** Folded words matched as they are (match, term and terms queries, sloppy phrases). */
  readonly words: Set<string>
  /** Wildcard, regexp and fuzzy queries: a test of each word. */
  readonly tests: Array<WordMatcher>
  /** Folded words of exact phrases, matched as a run of consecutive words. */
  readonly phrases: Array<ReadonlyArray<string>>
  /** Trailing-star wildcards of ASCII letters and digits (`wul*`), folded: the words starting with them. */
  readonly prefixes: Array<string>
}

/** What a query looks for in `field`, from its positive clauses (must_not and other records' clauses aside). */
const collect = (query: Query, field: string, into: Matchers) => {
  switch (query._tag) {
    case "Bool":
      ;[...query.must, ...query.filter, ...query.should].forEach((clause) => collect(clause, field, into))
      return
    case "Match":
    case "Terms": {
      if (query.field !== field) return
      const text = query._tag === "Match" ? query.text : query.values.map(String).join(" ")
      for (const word of wordsOf(fold(text))) into.words.add(word)
      return
    }
    case "Phrase": {
      if (query.field !== field) return
      const phrase = wordsOf(fold(query.text))
      if (query.slop === 0 && phrase.length > 1) into.phrases.push(phrase)
      else for (const word of phrase) into.words.add(word)
      return
    }
    case "Wildcard": {
      if (query.field !== field) return
      const pattern = fold(query.pattern)
      const prefix = trailingStarPrefix(pattern)
      if (prefix !== undefined && /^[a-z0-9]+$/.test(prefix)) {
        into.prefixes.push(prefix)
        return
      }
      const parts = wildcardParts(pattern)
      into.tests.push((word) => wildcardMatches(parts, word))
      return
    }
    case "Regexp": {
      if (query.field !== field) return
      into.tests.push(regexpMatcher(query.pattern, query.caseInsensitive ? "i" : ""))
      return
    }
    case "Fuzzy": {
      if (query.field !== field) return
      const term = fold(query.value)
      into.tests.push((word) => editDistance(word, term, query.distance) <= query.distance)
      return
    }
    default:
      return
  }
}

/** Whether each UTF-16 unit is a letter or digit on its own, learnt as units are met: 0 not yet known, 1 yes, 2 no. */
const knownWordUnits = new Uint8Array(0x10000)
const wordCharacter = /^[\p{L}\p{N}]$/u

/** Length of the word character (`[\p{L}\p{N}]`, as the content's tsvector has words) at `at`: 0 when it is none. */
const wordCharacterAt = (text: string, at: number) => {
  const unit = text.charCodeAt(at)
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const codePoint = text.codePointAt(at)!
    // A lone surrogate is no letter; a pair is one character beyond U+FFFF.
    return codePoint > 0xffff && wordCharacter.test(String.fromCodePoint(codePoint)) ? 2 : 0
  }
  let known = knownWordUnits[unit]!
  if (known === 0) {
    known = wordCharacter.test(String.fromCharCode(unit)) ? 1 : 2
    knownWordUnits[unit] = known
  }
  return known === 1 ? 1 : 0
}

/** Where the word characters starting at `position` end. */
export const wordEndAfter = (text: string, position: number) => {
  let at = position
  for (let size = 0; at < text.length && (size = wordCharacterAt(text, at)) > 0;) at += size
  return at
}

/** Lower case of an ASCII unit (what folding does to ASCII). */
const lowerAscii = (unit: number) => (unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit)

const isAscii = (text: string, start: number, end: number) => {
  for (let at = start; at < end; at++) if (text.charCodeAt(at) > 0x7f) return false
  return true
}

/** Whether the units from `start` are `word` (lower-case ASCII) in any case: ASCII units only. */
const isAsciiWordAt = (text: string, start: number, word: string) => {
  for (let i = 0; i < word.length; i++) if (lowerAscii(text.charCodeAt(start + i)) !== word.charCodeAt(i)) return false
  return true
}

/** Every word a text is searched for: those matched alone and those of exact phrases. */
const soughtWords = (matchers: Matchers): ReadonlySet<string> => new Set([...matchers.words, ...matchers.phrases.flat()])

/**
 * The folded form of the word from `start` to `end`, or undefined when it cannot match. Folding (an NFKD
 * normalisation) is what costs most per word, so it is avoided where it can be: an ASCII word folds to its lower
 * case, so unless a test needs every word it is compared in place with the sought words of its length, and most
 * words are ruled out without making a string. Other words are folded once per text.
 */
const wordFolder = (matchers: Matchers, sought: ReadonlySet<string>) => {
  const soughtByLength = new Map<number, Array<string>>()
  for (const word of sought) soughtByLength.set(word.length, [...(soughtByLength.get(word.length) ?? []), word])
  const folded = new Map<string, string>()
  return (text: string, start: number, end: number): string | undefined => {
    if (isAscii(text, start, end)) {
      if (matchers.tests.length > 0 || matchers.prefixes.length > 0) return text.slice(start, end).toLowerCase()
      return soughtByLength.get(end - start)?.find((word) => isAsciiWordAt(text, start, word))
    }
    const word = text.slice(start, end)
    let result = folded.get(word)
    if (result === undefined) folded.set(word, (result = fold(word)))
    return result
  }
}

/** Whether a folded word is sought: one of `sought`, or starting with one of `prefixes`. */
const isSought = (word: string, sought: ReadonlySet<string>, prefixes: ReadonlyArray<string>) =>
  sought.has(word) || prefixes.some((prefix) => word.startsWith(prefix))

/** Distinct words tested, past which a query's answers are forgotten (a scroll may highlight a whole corpus with one query). */
const maxTestedWords = 100_000

/**
 * The words tested against a query's wildcard, regexp and fuzzy tests, by field, for as long as the query is in use:
 * the texts of a page share most of their words, and testing each text's anew took 200 ms of the 1.2 s of eight fuzzy
 * terms' search on 100,000 documents.
 */
const testedWords = new WeakMap<Query, Map<string, Map<string, boolean>>>()

const testedWordsOf = (query: Query, field: string) => {
  let byField = testedWords.get(query)
  if (byField === undefined) testedWords.set(query, (byField = new Map()))
  const tested = byField.get(field)
  if (tested !== undefined && tested.size < maxTestedWords) return tested
  const fresh = new Map<string, boolean>()
  byField.set(field, fresh)
  return fresh
}

/** Whether a folded word matches on its own (phrases aside); tests run once per distinct word (see `testedWords`). */
const wordMatcher = (matchers: Matchers, tested: Map<string, boolean>): WordMatcher => {
  return (word) => {
    if (isSought(word, matchers.words, matchers.prefixes)) return true
    if (matchers.tests.length === 0) return false
    let result = tested.get(word)
    if (result === undefined) tested.set(word, (result = matchers.tests.some((test) => test(word))))
    return result
  }
}

/** Matched words of a text, as positions: the i-th one runs from `starts[i]` to `ends[i]`. */
export interface Found {
  readonly starts: ReadonlyArray<number>
  readonly ends: ReadonlyArray<number>
}

/** The matched words among those starting before `limit` (a word running across it counts whole), in order. */
const matches = (text: string, matchers: Matchers, sought: ReadonlySet<string>, limit: number, tested: Map<string, boolean>): Found => {
  const foldedWord = wordFolder(matchers, sought)
  const matchesAlone = wordMatcher(matchers, tested)
  const found = { starts: new Array<number>(), ends: new Array<number>() }
  // The last few words (as many as the longest phrase has) are kept in a ring, where a phrase ending at the newest
  // word can mark the ones before it; a word leaves the ring for `found`, if marked, when a newer one takes its slot.
  const ringSize = Math.max(1, ...matchers.phrases.map((phrase) => phrase.length))
  const ring = {
    starts: new Array<number>(ringSize),
    ends: new Array<number>(ringSize),
    words: new Array<string | undefined>(ringSize),
    marked: new Uint8Array(ringSize)
  }
  const leave = (index: number) => {
    const slot = index % ringSize
    if (ring.marked[slot] === 1) {
      found.starts.push(ring.starts[slot]!)
      found.ends.push(ring.ends[slot]!)
    }
  }
  const phraseEndsAt = (last: number, phrase: ReadonlyArray<string>) => {
    const first = last - phrase.length + 1
    if (first < 0) return false
    for (let offset = 0; offset < phrase.length; offset++) if (ring.words[(first + offset) % ringSize] !== phrase[offset]) return false
    return true
  }
  const scanEnd = Math.min(limit, text.length)
  let count = 0
  let at = 0
  for (;;) {
    while (at < scanEnd && wordCharacterAt(text, at) === 0) at++
    if (at >= scanEnd) break
    const start = at
    at = wordEndAfter(text, start)
    const word = foldedWord(text, start, at)
    if (count >= ringSize) leave(count - ringSize)
    const slot = count % ringSize
    ring.starts[slot] = start
    ring.ends[slot] = at
    ring.words[slot] = word
    ring.marked[slot] = word !== undefined && matchesAlone(word) ? 1 : 0
    for (const phrase of matchers.phrases) {
      if (phraseEndsAt(count, phrase)) for (let back = 0; back < phrase.length; back++) ring.marked[(count - back) % ringSize] = 1
    }
    count++
  }
  for (let index = Math.max(0, count - ringSize); index < count; index++) leave(index)
  return found
}

/** Length of the word character that ends just before `at`: 0 when there is none. */
const wordCharacterBefore = (text: string, at: number) => {
  if (at <= 0) return 0
  const unit = text.charCodeAt(at - 1)
  // A low surrogate belongs to a word character only as the second half of a letter beyond U+FFFF.
  if (unit >= 0xdc00 && unit <= 0xdfff) return at >= 2 && wordCharacterAt(text, at - 2) === 2 ? 2 : 0
  return wordCharacterAt(text, at - 1)
}

/** Above this many sought words, one pass word by word is cheaper than a native search per word. */
const maxNativelySoughtWords = 16

/** Lower-case ASCII letters, the rarest in English text first. */
const lettersRarestFirst = "zqxjkvbpygfwmucldrhsnioate"

/**
 * Where a sought ASCII word is looked for from: its digit, whose case cannot vary, or else its rarest letter, so
 * that the native search for that character stops at few places that are not the word.
 */
const anchorOf = (word: string) => {
  let anchor = 0
  let anchorRank = Infinity
  for (let at = 0; at < word.length; at++) {
    const rank = lettersRarestFirst.indexOf(word[at]!)
    if (rank < anchorRank) [anchor, anchorRank] = [at, rank]
  }
  return anchor
}

/** A sought word found in a text: its units from `start` to `end`, and the folded word it is. */
interface Hit {
  readonly start: number
  readonly end: number
  readonly word: string
}

/** The words with a unit beyond ASCII, starting before `scanEnd`, that fold to a sought word or prefix. */
const hitsBeyondAscii = (text: string, sought: ReadonlySet<string>, prefixes: ReadonlyArray<string>, scanEnd: number): Array<Hit> => {
  const hits: Array<Hit> = []
  // Folding keeps an ASCII first unit, lower-cased: a word that starts with another ASCII unit than every sought
  // word does cannot fold to one of them, and is passed without being folded (most words of a French or German text).
  const firstUnits = new Set([...sought, ...prefixes].map((word) => word.charCodeAt(0)))
  const folded = new Map<string, string>()
  const beyondAscii = /[^\x00-\x7f]/g
  // `test` rather than `exec`: no match array for each unit beyond ASCII, which a French text has every few words.
  while (beyondAscii.test(text)) {
    const at = beyondAscii.lastIndex - 1
    if (wordCharacterAt(text, at) === 0) continue
    let start = at
    for (let size = 0; (size = wordCharacterBefore(text, start)) > 0;) start -= size
    if (start >= scanEnd) break
    const wordEnd = wordEndAfter(text, at)
    // The word's other units beyond ASCII are not looked at again.
    beyondAscii.lastIndex = wordEnd
    const first = text.charCodeAt(start)
    if (first <= 0x7f && !firstUnits.has(lowerAscii(first))) continue
    const word = text.slice(start, wordEnd)
    let foldedWord = folded.get(word)
    if (foldedWord === undefined) folded.set(word, (foldedWord = fold(word)))
    if (isSought(foldedWord, sought, prefixes)) hits.push({ start, end: wordEnd, word: foldedWord })
  }
  return hits
}

/** Where `word` (lower-case ASCII) starts a word of `text`, in any case, before `scanEnd`: looked for from its anchor. */
const asciiWordStarts = (text: string, word: string, scanEnd: number): Array<number> => {
  const anchor = anchorOf(word)
  const lower = word[anchor]!
  const starts: Array<number> = []
  for (const unit of new Set([lower, lower.toUpperCase()])) {
    for (let at = text.indexOf(unit, anchor); at !== -1 && at - anchor < scanEnd; at = text.indexOf(unit, at + 1)) {
      const start = at - anchor
      if (isAsciiWordAt(text, start, word) && wordCharacterBefore(text, start) === 0) starts.push(start)
    }
  }
  return starts
}

/**
 * The words of a text that fold to one of `sought` or start with one of `prefixes`, found by the runtime's native
 * string search instead of walking every word. An ASCII word folds to its lower case, so each sought ASCII word (or
 * prefix) is looked for from its anchor character, in both cases, and kept where the units around the anchor spell
 * it in ASCII after a word boundary, and, for a word, before one: the text is never lower-cased whole (a quarter of a
 * long page's highlighting). A word with a unit beyond ASCII is reached from that unit and folded whole, as the walk
 * does. A word found twice (as a word and by a prefix) is one hit.
 */
const nativeHits = (text: string, sought: ReadonlySet<string>, prefixes: ReadonlyArray<string>, limit: number): Array<Hit> => {
  const scanEnd = Math.min(limit, text.length)
  const hits: Array<Hit> = []
  for (const word of sought) {
    if (!isAscii(word, 0, word.length)) continue
    for (const start of asciiWordStarts(text, word, scanEnd)) {
      const end = start + word.length
      if (wordCharacterAt(text, end) === 0) hits.push({ start, end, word })
    }
  }
  for (const prefix of prefixes) {
    for (const start of asciiWordStarts(text, prefix, scanEnd)) {
      const end = wordEndAfter(text, start + prefix.length)
      const word = text.slice(start, end)
      hits.push({ start, end, word: isAscii(word, 0, word.length) ? word.toLowerCase() : fold(word) })
    }
  }
  // A text of ASCII alone has as many UTF-8 bytes as units; counting them natively takes a tenth of the time the
  // search for a unit beyond ASCII takes to find none (0.2 against 2 ms a million characters).
  const all = Buffer.byteLength(text, "utf8") === text.length ? hits : hits.concat(hitsBeyondAscii(text, sought, prefixes, scanEnd))
  return all.sort((a, b) => a.start - b.start).filter((hit, index, sorted) => index === 0 || sorted[index - 1]!.start !== hit.start)
}

/** Whether no word character lies from `from` to `to`, so that the words ending and starting there are consecutive. */
const nothingWordlikeBetween = (text: string, from: number, to: number) => {
  for (let at = from; at < to; at++) if (wordCharacterAt(text, at) > 0) return false
  return true
}

/**
 * The same words as the walk when only words and exact phrases are sought (no test): the phrases' words are found
 * with the others, and a phrase is where consecutive found words spell it with nothing wordlike between them.
 */
const nativeMatches = (text: string, matchers: Matchers, sought: ReadonlySet<string>, limit: number): Found => {
  const hits = nativeHits(text, sought, matchers.prefixes, limit)
  const marked = hits.map((hit) => isSought(hit.word, matchers.words, matchers.prefixes))
  for (const phrase of matchers.phrases) {
    for (let first = 0; first + phrase.length <= hits.length; first++) {
      let spelt = hits[first]!.word === phrase[0]
      for (let offset = 1; spelt && offset < phrase.length; offset++) {
        const [before, hit] = [hits[first + offset - 1]!, hits[first + offset]!]
        spelt = hit.word === phrase[offset] && nothingWordlikeBetween(text, before.end, hit.start)
      }
      if (spelt) marked.fill(true, first, first + phrase.length)
    }
  }
  const kept = hits.filter((_, index) => marked[index])
  return { starts: kept.map((hit) => hit.start), ends: kept.map((hit) => hit.end) }
}

/** The words a highlight of `field` marks in `text`, in order (none when the query seeks none there). */
export const matchedWords = (text: string, query: Query, field: string, limit: number): Found => {
  const matchers: Matchers = { words: new Set(), tests: [], phrases: [], prefixes: [] }
  collect(query, field, matchers)
  const sought = soughtWords(matchers)
  if (sought.size === 0 && matchers.tests.length === 0 && matchers.prefixes.length === 0) return { starts: [], ends: [] }
  return matchers.tests.length === 0 && sought.size + matchers.prefixes.length <= maxNativelySoughtWords
    ? nativeMatches(text, matchers, sought, limit)
    : matches(text, matchers, sought, limit, testedWordsOf(query, field))
}
