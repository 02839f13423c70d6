import { createHash } from "node:crypto"
import { Schema } from "effect"

/** Categories of the reference's named entities. */
export const Category = Schema.Literal("PERSON", "ORGANIZATION", "LOCATION", "EMAIL", "DATE", "MONEY", "NUMBER", "NONE", "UNKNOWN")
export type Category = typeof Category.Type

/** A named entity as stored: a child of the document it was found in, routed by that document's root. */
export interface NamedEntity {
  readonly id: string
  readonly documentId: string
  readonly rootDocument: string
  readonly mention: string
  readonly mentionNorm: string
  readonly mentionNormTextLength: number
  readonly category: Category
  /** Every character offset of this mention in the document's content. */
  readonly offsets: ReadonlyArray<number>
  readonly extractor: string
  readonly extractorLanguage: string
  readonly isHidden: boolean
  readonly partsOfSpeech: string | null
}

/** The HTTP view: no id, documentId nor rootDocument. */
export const NamedEntityView = Schema.Struct({
  category: Category,
  mention: Schema.String,
  offsets: Schema.Array(Schema.Number),
  extractor: Schema.String,
  extractorLanguage: Schema.String,
  isHidden: Schema.Boolean,
  mentionNorm: Schema.String,
  partsOfSpeech: Schema.NullOr(Schema.String),
  mentionNormTextLength: Schema.Number
}).annotations({ identifier: "NamedEntity" })

export const namedEntityView = (entity: NamedEntity): typeof NamedEntityView.Type => ({
  category: entity.category,
  mention: entity.mention,
  offsets: entity.offsets,
  extractor: entity.extractor,
  extractorLanguage: entity.extractorLanguage,
  isHidden: entity.isHidden,
  mentionNorm: entity.mentionNorm,
  partsOfSpeech: entity.partsOfSpeech,
  mentionNormTextLength: entity.mentionNormTextLength
})

/** Letters that do not decompose into an ASCII letter and a combining mark. */
const asciiOf: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  Æ: "AE",
  ø: "o",
  Ø: "O",
  œ: "oe",
  Œ: "OE",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  ð: "d",
  Ð: "D",
  þ: "th",
  Þ: "TH",
  ı: "i",
  "\u2018": "'",
  "\u2019": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u2013": "-",
  "\u2014": "-"
}

/**
 * The reference's mentionNorm: transliterated to ASCII (accents dropped), trimmed, whitespace runs collapsed to
 * one space, lower-cased. Characters of scripts with no ASCII form are kept as they are.
 */
export const normalizeMention = (mention: string): string =>
  mention
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^\x00-\x7f]/g, (char) => asciiOf[char] ?? char)
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase()

/** Hex SHA-384 of `<documentId>|<offsets as [a, b]>|<extractor>|<mentionNorm>`. */
export const namedEntityId = (documentId: string, offsets: ReadonlyArray<number>, extractor: string, mentionNorm: string) =>
  createHash("sha384")
    .update(`${documentId}|[${offsets.join(", ")}]|${extractor}|${mentionNorm}`, "utf8")
    .digest("hex")
