/** What the benchmarks send as the Datashare 11.5 client does, and the figures they derive from latencies. */

/** The query of the client's searches and facets. */
export const clientQuery = (words: string) => ({
  bool: { must: [{ match_all: {} }, { bool: { should: [{ query_string: { query: words } }] } }, { match: { type: "Document" } }] }
})

/** The body of the client's result list, as it sends it. */
export const searchBody = (words: string) => ({
  from: 0,
  size: 25,
  sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }],
  _source: { includes: ["*"], excludes: ["content", "content_translated"] },
  highlight: {
    max_analyzed_offset: 999999,
    fields: { content: { fragment_size: 280, number_of_fragments: 2, pre_tags: ["<mark>"], post_tags: ["</mark>"] } }
  },
  track_total_hits: true,
  query: clientQuery(words)
})

/** The p-th percentile of ascending values (0 when there are none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits
