import { Effect } from "effect"
import { parseLanguage } from "./Languages.ts"
import { lazyModule } from "../LazyModule.ts"

/** The reference answers ENGLISH when nothing better is known. */
export const defaultLanguage = "ENGLISH"

// N-gram scores settle well before this; detection cost stays flat for long documents.
const sampleLength = 4096

/**
 * eld loads at the first detection: building its n-gram tables takes most of a second, which every process that
 * imports the extractor paid at start-up (the `review` commands, each test server) even when it detected nothing.
 */
const loadDetector = lazyModule(() => import("eld/medium"))

/**
 * The enum name (ENGLISH, FRENCH…) of the text's language; ENGLISH when the detector is unsure (short
 * texts, numbers, file lists). eld is used for being right on short texts where trigram detectors are not.
 */
export const detectLanguage = (text: string): Effect.Effect<string> =>
  Effect.map(loadDetector, ({ eld }) => {
    const result = eld.detect(text.slice(0, sampleLength))
    if (result.language === "" || !result.isReliable()) return defaultLanguage
    return parseLanguage(result.language)?.name ?? defaultLanguage
  })

/** The enum name of a language given as an option (name or ISO code), undefined when unknown. */
export const languageOption = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : parseLanguage(value)?.name
