/**
 * Tests of single words for the highlighter's wildcard, regexp and fuzzy queries, each in time bounded by the word's
 * length: a query's pattern comes from the user, so no backtracking RegExp is built from it.
 */

export type WordMatcher = (word: string) => boolean

const codePointSize = (codePoint: number) => (codePoint > 0xffff ? 2 : 1)

// Wildcards are matched by hand: as a backtracking RegExp, `*a*a*a*a*b` takes minutes on a word of 500 letters.
const anyRun = -1
const anyOne = -2

/** A Lucene wildcard as code points to match, `anyRun` for `*` and `anyOne` for `?`; `\` makes the next one literal. */
export const wildcardParts = (pattern: string): ReadonlyArray<number> => {
  const parts: Array<number> = []
  for (let i = 0; i < pattern.length;) {
    let codePoint = pattern.codePointAt(i)!
    if (codePoint === 0x5c && i + 1 < pattern.length) {
      i++
      codePoint = pattern.codePointAt(i)!
      parts.push(codePoint)
    } else parts.push(codePoint === 0x2a ? anyRun : codePoint === 0x3f ? anyOne : codePoint)
    i += codePointSize(codePoint)
  }
  return parts
}

/**
 * Whether the whole word matches. On a mismatch only the last `*` met takes one more character and the rest is
 * tried again: whatever giving more to an earlier `*` could match, the last one can match too. So the cost is at
 * most the word's length times the pattern's.
 */
export const wildcardMatches = (parts: ReadonlyArray<number>, word: string) => {
  let part = 0
  let at = 0
  let lastRun = -1
  let runEnd = 0
  while (at < word.length) {
    const codePoint = word.codePointAt(at)!
    if (part < parts.length && (parts[part] === anyOne || parts[part] === codePoint)) {
      part++
      at += codePointSize(codePoint)
    } else if (part < parts.length && parts[part] === anyRun) {
      lastRun = part++
      runEnd = at
    } else if (lastRun >= 0) {
      part = lastRun + 1
      runEnd += codePointSize(word.codePointAt(runEnd)!)
      at = runEnd
    } else return false
  }
  while (part < parts.length && parts[part] === anyRun) part++
  return part === parts.length
}

type CharacterTest = (unit: string) => boolean

/**
 * A regular expression as `translateRegexp` (Patterns.ts) writes it: `^(?:…)$` made of one-character pieces
 * (a literal, an escape, `.` or a class), `(?:…)` groups, `|`, and the quantifiers `*`, `+`, `?`, `{n}`, `{n,}`,
 * `{n,m}` (a trailing lazy `?` changes nothing for a whole-word match).
 */
type Pattern =
  | { readonly _tag: "Character"; readonly test: CharacterTest }
  | { readonly _tag: "Sequence"; readonly items: ReadonlyArray<Pattern> }
  | { readonly _tag: "Choice"; readonly options: ReadonlyArray<Pattern> }
  | { readonly _tag: "Repeat"; readonly item: Pattern; readonly min: number; readonly max: number }

const parsePattern = (pattern: string, flags: string): Pattern => {
  const source = pattern.slice(1, -1) // without the anchors: the automaton matches whole words anyway
  let i = 0
  // Each piece is still tested by a RegExp of its own, on one character, so characters match exactly as before.
  const character = (piece: string): Pattern => {
    const regexp = new RegExp(`^${piece}$`, flags)
    const known = new Map<string, boolean>()
    const test = (unit: string) => {
      let result = known.get(unit)
      if (result === undefined) known.set(unit, (result = regexp.test(unit)))
      return result
    }
    return { _tag: "Character", test }
  }
  const choice = (): Pattern => {
    const options = [sequence()]
    while (source[i] === "|") {
      i++
      options.push(sequence())
    }
    return options.length === 1 ? options[0]! : { _tag: "Choice", options }
  }
  const sequence = (): Pattern => {
    const items: Array<Pattern> = []
    while (i < source.length && source[i] !== "|" && source[i] !== ")") items.push(repeated(atom()))
    return { _tag: "Sequence", items }
  }
  const atom = (): Pattern => {
    if (source.startsWith("(?:", i)) {
      i += 3
      const group = choice()
      i++ // the closing parenthesis
      return group
    }
    const start = i
    if (source[i] === "\\") i += 2
    else if (source[i] === "[") {
      // As JavaScript reads a class: it ends at the first unescaped `]`, so `[]` is an empty class.
      i += source[i + 1] === "^" ? 2 : 1
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1
      i++
    } else i++
    return character(source.slice(start, i))
  }
  const quantifiers = /(?:([*+?])|\{(\d+)(,(\d*))?\})\??/y
  const repeated = (item: Pattern): Pattern => {
    quantifiers.lastIndex = i
    const quantifier = quantifiers.exec(source)
    if (quantifier === null) return item
    i += quantifier[0].length
    const [, symbol, low, comma, high] = quantifier
    if (symbol !== undefined) return { _tag: "Repeat", item, min: symbol === "+" ? 1 : 0, max: symbol === "?" ? 1 : Infinity }
    const min = Number(low)
    return { _tag: "Repeat", item, min, max: comma === undefined ? min : high === "" ? Infinity : Number(high) }
  }
  return choice()
}

/** How many states `compile` makes for a pattern. */
const stateCount = (pattern: Pattern): number => {
  switch (pattern._tag) {
    case "Character":
      return 2
    case "Sequence":
      return pattern.items.reduce((sum, item) => sum + stateCount(item), 0)
    case "Choice":
      return 1 + pattern.options.reduce((sum, option) => sum + stateCount(option), 0)
    case "Repeat": {
      const item = stateCount(pattern.item)
      return pattern.min * item + (pattern.max === Infinity ? item + 1 : (pattern.max - pattern.min) * (item + 1))
    }
  }
}

/**
 * States of a pattern (Thompson's construction): a state with a test moves to its one next state on a character
 * that passes it; a state without one moves to each of its next states without reading anything.
 */
interface Automaton {
  readonly tests: ReadonlyArray<CharacterTest | undefined>
  readonly next: ReadonlyArray<ReadonlyArray<number>>
  readonly accept: number
}

const compile = (pattern: Pattern): Automaton => {
  const tests: Array<CharacterTest | undefined> = []
  const next: Array<Array<number>> = []
  const state = (test?: CharacterTest) => {
    tests.push(test)
    next.push([])
    return tests.length - 1
  }
  /** Adds the states of `pattern` entered from state `from`; returns the state it leaves by. */
  const build = (pattern: Pattern, from: number): number => {
    switch (pattern._tag) {
      case "Character": {
        const reading = state(pattern.test)
        const after = state()
        next[from]!.push(reading)
        next[reading]!.push(after)
        return after
      }
      case "Sequence":
        return pattern.items.reduce((at, item) => build(item, at), from)
      case "Choice": {
        const after = state()
        for (const option of pattern.options) next[build(option, from)]!.push(after)
        return after
      }
      case "Repeat": {
        let at = from
        for (let count = 0; count < pattern.min; count++) at = build(pattern.item, at)
        if (pattern.max === Infinity) {
          const loop = state()
          next[at]!.push(loop)
          next[build(pattern.item, loop)]!.push(loop)
          return loop
        }
        for (let count = pattern.min; count < pattern.max; count++) {
          const after = state()
          next[at]!.push(after)
          next[build(pattern.item, at)]!.push(after)
          at = after
        }
        return at
      }
    }
  }
  const start = state()
  return { tests, next, accept: build(pattern, start) }
}

/** A bound on the automaton, as Lucene's max_determinized_states (10,000) is on its own: a bigger one highlights nothing. */
const maxStates = 10_000
/**
 * States visited for one regexp in one document: past this it matches nothing more, which bounds a pathological
 * pattern (one with thousands of states alive at once) to some tens of milliseconds. Usual patterns visit a few
 * states per character of the text's distinct words: 2,000 to 50,000 in all on 1 MB of English-like text.
 */
const maxSteps = 1_000_000

/**
 * A translated regexp tested by following every state of its automaton at once, one character after the other:
 * the cost is at most the word's length times the states, where JavaScript's backtracking RegExp can take
 * exponential time (`(a|a)*` takes seconds on a word of 30 letters, so no cap on the word's length would do).
 */
export const regexpMatcher = (pattern: string, flags: string): WordMatcher => {
  const parsed = parsePattern(pattern, flags)
  if (stateCount(parsed) > maxStates) return () => false
  const { tests, next, accept } = compile(parsed)
  const seen = new Int32Array(tests.length).fill(-1)
  const pending: Array<number> = []
  let round = 0
  let steps = 0
  /** Marks `state` and every state reached from it without reading as seen in `round`; adds the reading ones to `into`. */
  const enter = (state: number, into: Array<number>) => {
    pending.push(state)
    while (pending.length > 0) {
      const at = pending.pop()!
      if (seen[at] === round) continue
      seen[at] = round
      steps++
      if (tests[at] !== undefined) into.push(at)
      else for (const target of next[at]!) pending.push(target)
    }
  }
  return (word) => {
    if (steps >= maxSteps) return false
    round++
    let reading: Array<number> = []
    enter(0, reading)
    for (let i = 0; i < word.length; i++) {
      if (reading.length === 0 || steps >= maxSteps) return false
      const reached: Array<number> = []
      round++
      for (const state of reading) if (tests[state]!(word[i]!)) enter(next[state]![0]!, reached)
      reading = reached
    }
    return seen[accept] === round
  }
}

/** Buffers kept between calls (the highlighter asks for thousands of distances a page), grown as longer words come. */
let scratch = { a: new Int32Array(64), b: new Int32Array(64), rows: [new Int32Array(65), new Int32Array(65), new Int32Array(65)] }

const ensureScratch = (length: number) => {
  if (scratch.a.length >= length) return
  const size = 2 * length
  scratch = { a: new Int32Array(size), b: new Int32Array(size), rows: [0, 1, 2].map(() => new Int32Array(size + 1)) }
}

/** Writes the code points of `text` into `into` and answers how many there are. */
const codePointsInto = (text: string, into: Int32Array) => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      into[count++] = (unit - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000
      i++
    } else into[count++] = unit
  }
  return count
}

/** Counts of ASCII code points, all 0 between calls. */
const asciiCounts = new Int32Array(128)

/**
 * A lower bound of the edit distance from the code points alone, whatever their order: a substitution changes one of
 * each word's counts, an insertion or a deletion one, a transposition none. Most words of a page or of the lexicon are
 * ruled out by it before the table is computed. 0 (no bound) when a word holds a code point beyond ASCII.
 */
const bagDistance = (x: Int32Array, n: number, y: Int32Array, m: number) => {
  for (let i = 0; i < n; i++) if (x[i]! >= 128) return 0
  for (let j = 0; j < m; j++) if (y[j]! >= 128) return 0
  for (let i = 0; i < n; i++) asciiCounts[x[i]!]!++
  for (let j = 0; j < m; j++) asciiCounts[y[j]!]!--
  // Each code point's difference is read where it is first met, then cleared.
  let surplus = 0
  let shortfall = 0
  for (let k = 0; k < n + m; k++) {
    const codePoint = k < n ? x[k]! : y[k - n]!
    const count = asciiCounts[codePoint]!
    if (count > 0) surplus += count
    else shortfall -= count
    asciiCounts[codePoint] = 0
  }
  return Math.max(surplus, shortfall)
}

/**
 * Optimal string alignment distance (Levenshtein plus transpositions of neighbours), Lucene's fuzzy distance, over
 * code points as the SQL function `quarry_edit_distance` counts them; `max + 1` as soon as it must exceed `max` (a row's
 * least value never falls in the rows after it).
 */
export const editDistance = (a: string, b: string, max: number) => {
  ensureScratch(Math.max(a.length, b.length))
  const { a: x, b: y } = scratch
  const n = codePointsInto(a, x)
  const m = codePointsInto(b, y)
  if (Math.abs(n - m) > max || bagDistance(x, n, y, m) > max) return max + 1
  let [beforePrevious, previous, current] = scratch.rows as [Int32Array, Int32Array, Int32Array]
  for (let j = 0; j <= m; j++) previous[j] = j
  for (let i = 1; i <= n; i++) {
    current[0] = i
    let best = i
    for (let j = 1; j <= m; j++) {
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) value = Math.min(value, beforePrevious[j - 2]! + 1)
      current[j] = value
      if (value < best) best = value
    }
    if (best > max) return max + 1
    ;[beforePrevious, previous, current] = [previous, current, beforePrevious]
  }
  return previous[m]!
}
