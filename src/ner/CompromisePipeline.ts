import { createRequire } from "node:module"
import type nlpFunction from "compromise"
import type { Category } from "./NamedEntity.ts"
import type { Annotation, NerPipeline } from "./Pipeline.ts"

/** A word of a match as compromise describes it: its text, the punctuation after it, its position. */
interface Term {
  readonly text: string
  readonly post: string
  readonly offset: { readonly start: number; readonly length: number }
}

interface Match {
  readonly terms: ReadonlyArray<Term>
}

/** Punctuation after a word that ends a name: "Paris, France" is two places, "Smith; Jones" two people. */
const endsName = /[,;:()!?"\u201c\u201d]/
/** The possessive ending, not part of the name ("Obama's"). */
const possessive = /['\u2019]s$/

/** Splits a match where punctuation separates names and gives each part's text and offset in `text`. */
const spansOf = (text: string, match: Match, category: Category): ReadonlyArray<Annotation> => {
  const spans: Array<Annotation> = []
  let first: Term | undefined
  let last: Term | undefined
  const close = () => {
    if (first === undefined || last === undefined) return
    const start = first.offset.start
    const mention = text.slice(start, last.offset.start + last.offset.length).replace(possessive, "")
    if (/\p{L}/u.test(mention)) spans.push({ mention, category, offset: start })
    first = undefined
  }
  for (const term of match.terms) {
    first ??= term
    last = term
    if (endsName.test(term.post)) close()
  }
  close()
  return spans
}

/**
 * compromise loads at its first use, from its one-file CommonJS build: its ES modules are 436 files, which every
 * Quarry process loaded through tsx at start-up (about a second) although only the NER workers run this pipeline.
 */
let nlp: typeof nlpFunction | undefined
const loadNlp = () => (nlp ??= createRequire(import.meta.url)("compromise") as typeof nlpFunction)

const jsonOptions = { offset: true, terms: { offset: true } } as const

/**
 * People, organisations and places with compromise (rule-based, its lexicon inside the package: runs offline).
 * It answers to CORENLP, the name of the reference's default statistical pipeline, so that clients asking for
 * CORENLP get PERSON, ORGANIZATION and LOCATION entities.
 */
export const compromisePipeline: NerPipeline = {
  name: "CORENLP",
  // compromise's lexicon and rules are English.
  supports: (language) => language === "ENGLISH",
  // compromise's memory grows with the text: long contents are read in pieces.
  chunkLength: 16 * 1024,
  // About 1.3 s of a worker's time on a 2-core machine (25 KB a second, measured on English prose).
  maxRequestLength: 32 * 1024,
  onWorkers: true,
  findAnnotations: (text) => {
    const document = loadNlp()(text)
    const read = (matches: ReadonlyArray<unknown>, category: Category) =>
      (matches as ReadonlyArray<Match>).flatMap((match) => spansOf(text, match, category))
    return [
      ...read(document.people().json(jsonOptions), "PERSON"),
      ...read(document.organizations().json(jsonOptions), "ORGANIZATION"),
      ...read(document.places().json(jsonOptions), "LOCATION")
    ]
  }
}
