import { Either, Schema } from "effect"
import { InvalidContentRequest } from "./DocumentErrors.ts"

/**
 * A slice of a document's text with both key sets: the seed's (`start`, `size`) and the reference's (`offset`,
 * `limit`, `targetLanguage`). Offsets count UTF-16 code units, as the reference's Java strings do.
 */
export const ContentSlice = Schema.Struct({
  content: Schema.String,
  maxOffset: Schema.Number,
  start: Schema.Number,
  size: Schema.Number,
  offset: Schema.Number,
  limit: Schema.Number,
  targetLanguage: Schema.String
}).annotations({ identifier: "ContentSlice" })
export type ContentSlice = typeof ContentSlice.Type

/** Every case-insensitive, non-overlapping occurrence of `query` in a document's text. */
export const ContentOccurrences = Schema.Struct({
  offsets: Schema.Array(Schema.Number),
  count: Schema.Number,
  query: Schema.String,
  targetLanguage: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ContentOccurrences" })
export type ContentOccurrences = typeof ContentOccurrences.Type

const integerParameter = (name: string, value: string) =>
  /^-?\d+$/.test(value.trim())
    ? Either.right(Number(value.trim()))
    : Either.left(new InvalidContentRequest({ reason: `${name} must be an integer, not ${JSON.stringify(value)}` }))

/** Bounds of a slice: the whole text without offset and limit, else both checked against the text's length. */
export const sliceBounds = (
  length: number,
  offsetParameter: string | undefined,
  limitParameter: string | undefined
): Either.Either<{ offset: number; limit: number }, InvalidContentRequest> => {
  if (offsetParameter === undefined && limitParameter === undefined) return Either.right({ offset: 0, limit: length })
  if (offsetParameter === undefined || limitParameter === undefined) {
    return Either.left(new InvalidContentRequest({ reason: "offset and limit must be given together" }))
  }
  return Either.gen(function* () {
    const offset = yield* integerParameter("offset", offsetParameter)
    const limit = yield* integerParameter("limit", limitParameter)
    if (offset < 0 || limit < 0) {
      return yield* Either.left(
        new InvalidContentRequest({ reason: `offset or limit should not be negative (offset=${offset}, limit=${limit})` })
      )
    }
    if (offset + limit > length) {
      return yield* Either.left(
        new InvalidContentRequest({ reason: `Range [${offset}-${offset + limit}] is out of document range ([0-${length}])` })
      )
    }
    return { offset, limit }
  })
}

export const slice = (text: string, bounds: { offset: number; limit: number }, targetLanguage: string): ContentSlice => ({
  content: text.slice(bounds.offset, bounds.offset + bounds.limit),
  maxOffset: text.length,
  start: bounds.offset,
  size: bounds.limit,
  offset: bounds.offset,
  limit: bounds.limit,
  targetLanguage
})

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Offsets of the occurrences of `query`, left to right and non-overlapping. A case-insensitive match rather than
 * lower-casing both strings: lower-casing can change a text's length (`İ` becomes two code units) and shift offsets.
 */
export const occurrences = (text: string, query: string): ReadonlyArray<number> =>
  Array.from(text.matchAll(new RegExp(escapeRegExp(query), "giu")), (match) => match.index)

/**
 * Whether a project's `allow_from_mask` lets `address` download sources: null, empty or `*` allow everything;
 * otherwise each `*` stands for one IPv4 octet and the mask must match the whole dotted address (an
 * IPv6-mapped IPv4 address is matched as IPv4).
 */
export const maskAllows = (mask: string | null, address: string) => {
  const trimmed = mask?.trim() ?? ""
  if (trimmed === "" || trimmed === "*") return true
  const ipv4 = address.toLowerCase().startsWith("::ffff:") ? address.slice("::ffff:".length) : address
  const pattern = new RegExp(`^${trimmed.split("*").map(escapeRegExp).join("\\d{1,3}")}$`)
  return pattern.test(ipv4)
}
