/**
 * Words of analysed text as the content tsvector holds them (the `simple` configuration over folded text), and
 * tsquery literals built from them: every lexeme is letters and digits only, so the literal is always valid.
 */

/** PostgreSQL refuses lexemes over 2 KB; longer words cannot be in any tsvector, so they match nothing. */
const maxWordLength = 500

export const words = (text: string): ReadonlyArray<string> => text.match(/[\p{L}\p{N}]+/gu) ?? []

export const isIndexableWord = (word: string) => word.length <= maxWordLength

const lexeme = (word: string) => `'${word}'`

/** `'a' | 'b'` or `'a' & 'b'`. */
export const anyOrAllQuery = (terms: ReadonlyArray<string>, operator: "and" | "or") =>
  terms.map(lexeme).join(operator === "and" ? " & " : " | ")

/** Longest slop turned into distance alternatives; beyond it a phrase needs its words within this distance. */
const maxSlop = 10

/**
 * A phrase: words in order, adjacent (`<->`). With a slop, each pair of neighbours may be up to slop + 1
 * positions apart, or swapped within slop − 1, which is how Lucene's sloppy phrases count moves for two words.
 */
export const phraseQuery = (terms: ReadonlyArray<string>, slop: number) => {
  if (slop === 0) return terms.map(lexeme).join(" <-> ")
  const limit = Math.min(slop, maxSlop)
  const pairs: Array<string> = []
  for (let i = 0; i + 1 < terms.length; i++) {
    const [a, b] = [lexeme(terms[i]!), lexeme(terms[i + 1]!)]
    const options: Array<string> = []
    for (let distance = 1; distance <= limit + 1; distance++) options.push(`${a} <${distance}> ${b}`)
    for (let distance = 1; distance <= limit - 1; distance++) options.push(`${b} <${distance}> ${a}`)
    pairs.push(`(${options.join(" | ")})`)
  }
  return pairs.join(" & ")
}

export const prefixQuery = (prefix: string) => `${lexeme(prefix)}:*`
