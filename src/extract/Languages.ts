import { execFile } from "node:child_process"
import { HttpApiSchema } from "@effect/platform"
import { Effect, Schema } from "effect"

/** A language the text extractor knows: the reference's enum name with its ISO 639-2/T and 639-1 codes. */
export interface Language {
  readonly name: string
  readonly iso6392: string
  readonly iso6391: string
}

const language = (name: string, iso6392: string, iso6391: string): Language => ({ name, iso6392, iso6391 })

/**
 * Every language of the text extractor, the reference's first (its order is what clients have seen), then the
 * other languages Tesseract and the detectors commonly cover. UNKNOWN stays last, as in the reference.
 */
export const languages: ReadonlyArray<Language> = [
  language("ENGLISH", "eng", "en"),
  language("SPANISH", "spa", "es"),
  language("GERMAN", "deu", "de"),
  language("FRENCH", "fra", "fr"),
  language("RUSSIAN", "rus", "ru"),
  language("CHINESE", "zho", "zh"),
  language("PORTUGUESE", "por", "pt"),
  language("ITALIAN", "ita", "it"),
  language("POLISH", "pol", "pl"),
  language("DUTCH", "nld", "nl"),
  language("ARABIC", "ara", "ar"),
  language("GALICIAN", "glg", "gl"),
  language("CATALAN", "cat", "ca"),
  language("SWEDISH", "swe", "sv"),
  language("ROMANIAN", "ron", "ro"),
  language("HUNGARIAN", "hun", "hu"),
  language("DANISH", "dan", "da"),
  language("SLOVAK", "slk", "sk"),
  language("BASQUE", "eus", "eu"),
  language("LITHUANIAN", "lit", "lt"),
  language("NORWEGIAN", "nor", "no"),
  language("SLOVENIAN", "slv", "sl"),
  language("ESTONIAN", "est", "et"),
  language("BELARUSIAN", "bel", "be"),
  language("ICELANDIC", "isl", "is"),
  language("AFRIKAANS", "afr", "af"),
  language("ALBANIAN", "sqi", "sq"),
  language("AMHARIC", "amh", "am"),
  language("ARMENIAN", "hye", "hy"),
  language("AZERBAIJANI", "aze", "az"),
  language("BENGALI", "ben", "bn"),
  language("BOSNIAN", "bos", "bs"),
  language("BULGARIAN", "bul", "bg"),
  language("BURMESE", "mya", "my"),
  language("CROATIAN", "hrv", "hr"),
  language("CZECH", "ces", "cs"),
  language("ESPERANTO", "epo", "eo"),
  language("FINNISH", "fin", "fi"),
  language("GEORGIAN", "kat", "ka"),
  language("GREEK", "ell", "el"),
  language("GUJARATI", "guj", "gu"),
  language("HEBREW", "heb", "he"),
  language("HINDI", "hin", "hi"),
  language("INDONESIAN", "ind", "id"),
  language("IRISH", "gle", "ga"),
  language("JAPANESE", "jpn", "ja"),
  language("KANNADA", "kan", "kn"),
  language("KAZAKH", "kaz", "kk"),
  language("KHMER", "khm", "km"),
  language("KOREAN", "kor", "ko"),
  language("KURDISH", "kur", "ku"),
  language("LAO", "lao", "lo"),
  language("LATIN", "lat", "la"),
  language("LATVIAN", "lav", "lv"),
  language("LUXEMBOURGISH", "ltz", "lb"),
  language("MACEDONIAN", "mkd", "mk"),
  language("MALAY", "msa", "ms"),
  language("MALAYALAM", "mal", "ml"),
  language("MALTESE", "mlt", "mt"),
  language("MARATHI", "mar", "mr"),
  language("MONGOLIAN", "mon", "mn"),
  language("NEPALI", "nep", "ne"),
  language("PASHTO", "pus", "ps"),
  language("PERSIAN", "fas", "fa"),
  language("PUNJABI", "pan", "pa"),
  language("SERBIAN", "srp", "sr"),
  language("SINHALA", "sin", "si"),
  language("SWAHILI", "swa", "sw"),
  language("TAGALOG", "tgl", "tl"),
  language("TAMIL", "tam", "ta"),
  language("TELUGU", "tel", "te"),
  language("THAI", "tha", "th"),
  language("TIBETAN", "bod", "bo"),
  language("TURKISH", "tur", "tr"),
  language("UKRAINIAN", "ukr", "uk"),
  language("URDU", "urd", "ur"),
  language("UZBEK", "uzb", "uz"),
  language("VIETNAMESE", "vie", "vi"),
  language("WELSH", "cym", "cy"),
  language("YIDDISH", "yid", "yi"),
  language("UNKNOWN", "ukn", "un")
]

// Bibliographic ISO 639-2 codes and Tesseract's own names for languages of the table.
const aliases: Readonly<Record<string, string>> = {
  chi: "zho",
  fre: "fra",
  ger: "deu",
  dut: "nld",
  cze: "ces",
  gre: "ell",
  per: "fas",
  rum: "ron",
  slo: "slk",
  alb: "sqi",
  arm: "hye",
  baq: "eus",
  geo: "kat",
  ice: "isl",
  mac: "mkd",
  may: "msa",
  bur: "mya",
  tib: "bod",
  wel: "cym",
  fil: "tgl",
  kmr: "kur"
}

const byCode = new Map(languages.flatMap((entry) => [[entry.iso6392, entry] as const, [entry.iso6391, entry] as const]))
const byName = new Map(languages.map((entry) => [entry.name, entry] as const))

/** The language of an ISO 639-2 (T or B) or 639-1 code or an enum name, case-insensitively. */
export const parseLanguage = (code: string): Language | undefined => {
  const lower = code.trim().toLowerCase()
  return byCode.get(aliases[lower] ?? lower) ?? byName.get(code.trim().toUpperCase())
}

/** The JSON layout of the languages endpoints. */
export const languageView = (entry: Language) => ({ iso6392: entry.iso6392, name: entry.name })

export const LanguageViewSchema = Schema.Struct({ iso6392: Schema.String, name: Schema.String })

/**
 * The languages of a `tesseract --list-langs` output. Tesseract names trained data files, so `chi_sim` and
 * `chi_tra` are both Chinese and `deu_latf` is German; `osd`, `equ` and script models are no languages and
 * are left out. Each language appears once, in the order Tesseract lists them.
 */
export const parseTesseractLanguages = (output: string): ReadonlyArray<Language> => {
  const found = new Map<string, Language>()
  for (const line of output.split(/\r?\n/)) {
    const code = line.trim()
    if (code === "" || code.startsWith("List of") || code.includes("/")) continue
    const entry = parseLanguage(code.split("_")[0] ?? code)
    if (entry !== undefined) found.set(entry.name, entry)
  }
  return [...found.values()]
}

/** The OCR engine cannot be run (not installed, or failing); the languages endpoint answers 503. */
export class OcrEngineUnavailable extends Schema.TaggedError<OcrEngineUnavailable>()(
  "OcrEngineUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

const listTimeoutMs = 10_000

/**
 * Runs `<binary> --list-langs`. Tesseract 3 printed the list on stderr and later versions on stdout, so
 * both are read.
 */
export const tesseractLanguages = Effect.fn("Languages.tesseractLanguages")(function* (binary: string = "tesseract") {
  const output = yield* Effect.async<string, OcrEngineUnavailable>((resume, signal) => {
    execFile(binary, ["--list-langs"], { signal, timeout: listTimeoutMs, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error === null) return resume(Effect.succeed(`${stdout}\n${stderr}`))
      const reason = error.code === "ENOENT" ? "is not installed" : `failed: ${error.message}`
      resume(Effect.fail(new OcrEngineUnavailable({ message: `the OCR engine (${binary}) ${reason}` })))
    })
  })
  return parseTesseractLanguages(output)
})
