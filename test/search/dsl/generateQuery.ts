/**
 * Random ES queries for the fuzz test: nesting of the supported constructs, unsupported and unknown ones, wrong
 * types, and random text in query_string. A seeded generator, so a failure can be replayed.
 */

export type Random = () => number

/** mulberry32: a small seeded generator. */
export const seeded = (seed: number): Random => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
export const chance = (random: Random, p: number) => random() < p
export const count = (random: Random, max: number) => Math.floor(random() * (max + 1))

const fields = [
  "content",
  "content_translated.content",
  "type",
  "path",
  "path.parts",
  "dirname",
  "dirname.tree",
  "contentType",
  "contentTypeCategory",
  "language",
  "tags",
  "nerTags",
  "extractionLevel",
  "contentLength",
  "extractionDate",
  "_id",
  "_index",
  "_routing",
  "title",
  "titleNorm",
  "mentionNorm",
  "mention",
  "category",
  "isHidden",
  "offsets",
  "metadata.tika_metadata_dcterms_created",
  "metadata.tika_metadata_dc_creator",
  "metadata.tika_metadata_dc_creator.keyword",
  "metadata.",
  "nosuchfield",
  "",
  "*",
  "a.b.c",
  "join",
  "rootDocument",
  "parentDocument",
  "status",
  "documentId"
]

const words = [
  "quick",
  "fox",
  "FOX",
  "café",
  "merger",
  "john doe",
  "lazy",
  "2024-02-01",
  "application/pdf",
  "/data/docs",
  "0",
  "1",
  "-3",
  "1e400",
  "true",
  "now-1d/d",
  "Ü",
  "😀",
  "a'b",
  "x\\y",
  "%_",
  ""
]
const luceneBits = [
  " ",
  " ",
  " ",
  "AND",
  "OR",
  "NOT",
  "&&",
  "||",
  "!",
  "+",
  "-",
  "(",
  ")",
  '"',
  "*",
  "?",
  "~",
  "~2",
  "^2",
  "[",
  "]",
  "{",
  "}",
  " TO ",
  ":",
  "/",
  "\\",
  ">",
  ">=",
  "<",
  "_exists_:",
  "content:",
  "tags:",
  "extractionLevel:",
  "path:",
  "metadata.tika_metadata_dc_creator:",
  "quick",
  "fox",
  "bro*",
  "*ales",
  "qu?ck",
  "1",
  "2024-01-01",
  "é",
  "'",
  ".*",
  "[a-z]",
  "{2,3}",
  "=",
  "|",
  "&"
]

export const randomString = (random: Random) => {
  if (chance(random, 0.5)) return pick(random, words)
  let text = ""
  for (let i = count(random, 8); i >= 0; i--) text += pick(random, luceneBits)
  return text
}

export const randomScalar = (random: Random): unknown =>
  pick(random, [
    () => randomString(random),
    () => Math.floor(random() * 10) - 2,
    () => random() * 1e6,
    () => pick(random, [0, -1, 2 ** 31, 2 ** 53, 1e300, -1e-9, 1704067200000]),
    () => random() < 0.5,
    () => null
  ])()

export const randomValue = (random: Random, depth: number): unknown =>
  chance(random, 0.8) || depth > 2
    ? randomScalar(random)
    : chance(random, 0.5)
      ? Array.from({ length: count(random, 3) }, () => randomValue(random, depth + 1))
      : { [pick(random, ["query", "value", "gte", "x"])]: randomValue(random, depth + 1) }

export const field = (random: Random) => pick(random, fields)

const unsupportedQueries = [
  "nested",
  "script",
  "function_score",
  "geo_distance",
  "span_term",
  "more_like_this",
  "knn",
  "simple_query_string",
  "dis_max"
]

export const randomQuery = (random: Random, depth = 0): unknown => {
  if (depth > 5) return { match_all: {} }
  const sub = () => randomQuery(random, depth + 1)
  const clauses = () => (chance(random, 0.3) ? sub() : Array.from({ length: count(random, 3) }, sub))
  const builders: ReadonlyArray<() => unknown> = [
    () => ({ match_all: {} }),
    () => ({ match_none: {} }),
    () => ({
      bool: {
        ...(chance(random, 0.6) ? { must: clauses() } : {}),
        ...(chance(random, 0.4) ? { filter: clauses() } : {}),
        ...(chance(random, 0.5) ? { should: clauses() } : {}),
        ...(chance(random, 0.3) ? { must_not: clauses() } : {}),
        ...(chance(random, 0.2) ? { minimum_should_match: pick(random, [0, 1, 2, -1, "50%", "-25%", "2<75%", "x", 1.5]) } : {})
      }
    }),
    () => ({
      match: {
        [field(random)]: chance(random, 0.7)
          ? randomScalar(random)
          : { query: randomScalar(random), operator: pick(random, ["and", "or", "xor"]) }
      }
    }),
    () => ({
      match_phrase: {
        [field(random)]: chance(random, 0.7) ? randomString(random) : { query: randomString(random), slop: count(random, 20) }
      }
    }),
    () => ({ multi_match: { query: randomString(random), fields: [field(random), field(random)] } }),
    () => ({
      term: {
        [field(random)]: chance(random, 0.8) ? randomScalar(random) : { value: randomScalar(random), case_insensitive: random() < 0.5 }
      }
    }),
    () => ({ terms: { [field(random)]: Array.from({ length: count(random, 4) }, () => randomScalar(random)) } }),
    () => ({
      range: {
        [field(random)]: Object.fromEntries(
          ["gt", "gte", "lt", "lte", "format"].filter(() => chance(random, 0.4)).map((key) => [key, randomScalar(random)])
        )
      }
    }),
    () => ({ exists: { field: field(random) } }),
    () => ({ ids: { values: Array.from({ length: count(random, 3) }, () => pick(random, ["doc-fox", "ne-john", randomString(random)])) } }),
    () => ({ prefix: { [field(random)]: randomString(random) } }),
    () => ({
      wildcard: {
        [field(random)]: chance(random, 0.5) ? randomString(random) : { value: randomString(random), case_insensitive: random() < 0.5 }
      }
    }),
    () => ({
      regexp: {
        [field(random)]: pick(random, [
          "message/.*",
          "fo[xy]",
          "(a|b)*c",
          "a{2,3}",
          "(",
          "[z-a]",
          "a{300}",
          "@",
          "x\\d+",
          randomString(random)
        ])
      }
    }),
    () => ({
      fuzzy: {
        [field(random)]: chance(random, 0.5)
          ? randomString(random)
          : { value: randomString(random), fuzziness: pick(random, [0, 1, 2, 3, "AUTO", "x"]) }
      }
    }),
    () => ({
      query_string: {
        query: randomString(random),
        ...(chance(random, 0.3) ? { default_operator: pick(random, ["AND", "OR", "maybe"]) } : {}),
        ...(chance(random, 0.3) ? { fields: [field(random)] } : {}),
        ...(chance(random, 0.2) ? { default_field: field(random) } : {})
      }
    }),
    () => ({ query_string: { query: randomString(random) + " " + randomString(random) } }),
    () => ({ has_child: { type: pick(random, ["NamedEntity", "Duplicate", "Document", "x"]), query: sub() } }),
    () => ({ has_parent: { parent_type: pick(random, ["Document", "NamedEntity"]), query: sub() } }),
    () => ({ parent_id: { type: pick(random, ["NamedEntity", "Duplicate", "x"]), id: pick(random, ["doc-mail", randomString(random)]) } }),
    () => ({ constant_score: { filter: sub() } }),
    () => ({ [pick(random, unsupportedQueries)]: { path: "x", query: sub() } }),
    () => ({ [randomString(random)]: {} }),
    () => randomValue(random, 0),
    () => ({ match: {}, term: {} })
  ]
  return pick(random, builders)()
}
