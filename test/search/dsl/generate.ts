/**
 * Random ES request bodies for the fuzz test: the queries of generateQuery.ts with aggregations, sorts and the other
 * top-level keys, and requests to the proxy over HTTP, refused ones included.
 */
import { chance, count, field, pick, type Random, randomQuery, randomScalar, randomString, randomValue } from "./generateQuery.ts"

// The tests take the seeded generator from here, with the bodies it draws.
export { type Random, seeded } from "./generateQuery.ts"

const randomAggregation = (random: Random, depth: number): unknown => {
  const children = () => (depth === 0 && chance(random, 0.4) ? { aggs: randomAggregations(random, depth + 1) } : {})
  return pick(random, [
    () => ({
      terms: {
        field: field(random),
        ...(chance(random, 0.5) ? { size: pick(random, [0, 1, 3, 25, 100000, -1]) } : {}),
        ...(chance(random, 0.3)
          ? { order: pick(random, [{ _count: "asc" }, { _key: "desc" }, { size: "desc" }, [{ _key: "asc" }], { nope: "asc" }]) }
          : {}),
        ...(chance(random, 0.3) ? { include: pick(random, [".*a.*", "/data/.*", "(", ["urgent"], randomString(random)]) } : {}),
        ...(chance(random, 0.2) ? { exclude: randomString(random) } : {}),
        ...(chance(random, 0.1) ? { missing: randomScalar(random) } : {})
      },
      ...children()
    }),
    () => ({
      date_histogram: {
        field: field(random),
        ...pick(random, [
          { calendar_interval: pick(random, ["1M", "1y", "1d", "week", "2M"]) },
          { fixed_interval: pick(random, ["1d", "1ms", "30m", "0d", "x"]) },
          {}
        ]),
        ...(chance(random, 0.5) ? { format: pick(random, ["yyyy", "yyyy-MM", "yyyy-MM-dd", "epoch_millis"]) } : {}),
        ...(chance(random, 0.3) ? { missing: pick(random, ["1970", "1970-01", "nope"]) } : {}),
        ...(chance(random, 0.5) ? { min_doc_count: pick(random, [0, 1, 5]) } : {})
      },
      ...children()
    }),
    () => ({ [pick(random, ["sum", "max", "min", "avg", "cardinality", "value_count"])]: { field: field(random) }, ...children() }),
    () => ({ bucket_sort: { from: count(random, 3), size: count(random, 3) } }),
    () => ({ [pick(random, ["composite", "top_hits", "percentiles", "filters", "nested", "significant_terms"])]: {} }),
    () => ({ [randomString(random)]: { field: field(random) } }),
    () => randomValue(random, 1)
  ])()
}

const randomAggregations = (random: Random, depth: number) =>
  Object.fromEntries(
    Array.from({ length: 1 + count(random, 2) }, () => [
      pick(random, ["a", "b", "size", "bucket_truncate", "metadata.x"]),
      randomAggregation(random, depth)
    ])
  )

const randomSort = (random: Random): unknown =>
  pick(random, [
    () => field(random),
    () => ({ [field(random)]: pick(random, ["asc", "desc", "up"]) }),
    () => ({
      [field(random)]: {
        order: pick(random, ["asc", "desc"]),
        ...(chance(random, 0.3) ? { unmapped_type: "date" } : {}),
        ...(chance(random, 0.2) ? { missing: "_first" } : {})
      }
    }),
    () => ({ _score: { order: "desc" } }),
    () => ({
      _script: {
        type: "number",
        script: {
          source: pick(random, ["doc['offsets'].size()", "params.order.indexOf(doc._id.value)", "1 + 1"]),
          params: { order: ["doc-fox"] }
        },
        order: "asc"
      }
    }),
    () => randomValue(random, 1)
  ])()

const topLevel: ReadonlyArray<[string, (random: Random) => unknown]> = [
  ["query", (random) => randomQuery(random)],
  ["query", (random) => randomQuery(random)],
  ["aggs", (random) => randomAggregations(random, 0)],
  ["sort", (random) => (chance(random, 0.5) ? randomSort(random) : [randomSort(random), randomSort(random)])],
  ["from", (random) => pick(random, [0, 1, 5, -1, 9_999, "2", 1.5])],
  ["size", (random) => pick(random, [0, 1, 10, 25, 10_001, -3, "x"])],
  [
    "_source",
    (random) =>
      pick(random, [true, false, "path", ["path", "metadata.*"], { includes: ["*"], excludes: ["content"] }, { excludes: "x" }, 3])
  ],
  [
    "highlight",
    (random) => ({
      fields: {
        [pick(random, ["content", "content_translated.content", "path"])]: {
          fragment_size: pick(random, [0, 10, 280]),
          number_of_fragments: pick(random, [0, 1, 2]),
          no_match_size: pick(random, [0, 50]),
          pre_tags: ["<mark>"],
          post_tags: ["</mark>"]
        }
      },
      ...(chance(random, 0.1) ? { bogus: 1 } : {})
    })
  ],
  ["track_total_hits", (random) => pick(random, [true, false, 3, -1, "x", 2 ** 40])],
  [
    "unsupported",
    (random) =>
      pick(random, ["suggest", "collapse", "post_filter", "search_after", "script_fields", "runtime_mappings", "min_score", "unknown_key"])
  ]
]

/** One request body: a random subset of the top-level keys, or sometimes not an object at all. */
export const randomBody = (random: Random): unknown => {
  if (chance(random, 0.03)) return randomValue(random, 0)
  const body: Record<string, unknown> = {}
  for (const [key, make] of topLevel) {
    if (!chance(random, key === "query" ? 0.6 : 0.25)) continue
    if (key === "unsupported") body[make(random) as string] = {}
    else body[key] = make(random)
  }
  return body
}

/** The path of one request: mostly searches of the fixture index, sometimes counts, async searches or two indices. */
export const randomPath = (random: Random) =>
  pick(random, [
    "corpus-a/_search",
    "corpus-a/_search",
    "corpus-a/_search",
    "corpus-a,corpus-b/_search",
    "corpus-a/_count",
    "corpus-a/_async_search"
  ])

/** One request to the search proxy over HTTP: a method, a path under /api/index/search/ with its query, a body text. */
export interface ProxyRequest {
  readonly method: "GET" | "POST" | "HEAD" | "DELETE" | "PUT"
  readonly path: string
  readonly body: string | undefined
}

/**
 * Requests as clients send them to the proxy, and the ones it refuses: unknown and malformed index lists, a path
 * without an action, POSTs that are neither searches nor counts, DELETE and PUT, NUL characters and bad escapes in
 * parameters, bodies that are not JSON.
 */
export const randomProxyRequest = (random: Random): ProxyRequest => {
  const path = pick(random, [
    randomPath(random),
    randomPath(random),
    randomPath(random),
    "no-such-index/_search",
    "corpus-a,no-such-index/_search",
    "bad%20name/_search",
    "bad!name/_count",
    "corpus-a",
    "corpus-a/_delete_by_query",
    "corpus-a/_doc/doc-fox",
    "corpus-a/_source/doc-fox",
    "corpus-a/_mapping/field/content",
    "_search/scroll",
    "corpus-a/doc/_search",
    ",/_search"
  ])
  const query = pick(random, [
    "",
    "",
    "",
    "?size=1",
    "?from=-1",
    "?size=abc",
    "?q=a%00b",
    "?_source=a%00",
    "?q=%E0%A4%A",
    "?routing=doc-fox"
  ])
  const method = pick(random, ["POST", "POST", "POST", "GET", "GET", "HEAD", "DELETE", "PUT"] as const)
  const body =
    method === "HEAD" || method === "DELETE" || chance(random, 0.1)
      ? undefined
      : chance(random, 0.05)
        ? pick(random, ["{not json", "[", '"text"', '{"query":{"match_all":{}}', "\u0000"])
        : JSON.stringify(randomBody(random))
  return { method, path: `/api/index/search/${path}${query}`, body }
}
