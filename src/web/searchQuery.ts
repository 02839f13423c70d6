/** The Elasticsearch request bodies of the search page, built from the filters kept in the page's address. */

export const pageSize = 10
export const entityCategories = ["PERSON", "ORGANIZATION", "LOCATION", "EMAIL"] as const
export const termFacets = ["contentType", "language", "tags"] as const
export type TermFacet = (typeof termFacets)[number]

export interface Filters {
  readonly q: string
  readonly from: number
  readonly terms: Readonly<Record<TermFacet, ReadonlyArray<string>>>
  readonly path: string
  readonly starred: boolean
  readonly entities: Readonly<Record<string, ReadonlyArray<string>>>
}

export const filtersOf = (query: URLSearchParams): Filters => ({
  q: query.get("q") ?? "",
  from: Math.max(0, Number(query.get("from") ?? "0") || 0),
  terms: { contentType: query.getAll("contentType"), language: query.getAll("language"), tags: query.getAll("tags") },
  path: query.get("path") ?? "",
  starred: query.get("starred") === "1",
  entities: Object.fromEntries(entityCategories.map((category) => [category, query.getAll(category)]))
})

export const queryOf = (filters: Filters) => {
  const query = new URLSearchParams()
  if (filters.q !== "") query.set("q", filters.q)
  if (filters.from > 0) query.set("from", String(filters.from))
  for (const facet of termFacets) for (const value of filters.terms[facet]) query.append(facet, value)
  if (filters.path !== "") query.set("path", filters.path)
  if (filters.starred) query.set("starred", "1")
  for (const [category, values] of Object.entries(filters.entities)) for (const value of values) query.append(category, value)
  return query
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\#@&<>~"]/g, "\\$&")

const highlight = { fragment_size: 280, number_of_fragments: 2, pre_tags: ["<mark>"], post_tags: ["</mark>"] }

/** Filter clauses for everything but the query string, in the shapes the reference client sends. */
const clauses = (filters: Filters, starredIds: ReadonlyArray<string>) => [
  ...termFacets.filter((facet) => filters.terms[facet].length > 0).map((facet) => ({ terms: { [facet]: filters.terms[facet] } })),
  ...(filters.path === "" ? [] : [{ term: { "dirname.tree": filters.path.replace(/\/$/, "") } }]),
  ...(filters.starred ? [{ terms: { _id: starredIds } }] : []),
  ...Object.entries(filters.entities)
    .filter(([, values]) => values.length > 0)
    .map(([category, values]) => ({
      has_child: {
        type: "NamedEntity",
        query: {
          bool: {
            must: [
              { query_string: { default_field: "mentionNorm", query: values.map((value) => `(${JSON.stringify(value)})`).join(" OR ") } },
              { query_string: { default_field: "category", query: category } }
            ]
          }
        }
      }
    }))
]

/** Results with highlights and, in the same request, the facets of the current result set. */
export const documentSearch = (filters: Filters, starredIds: ReadonlyArray<string>, pathRoot: string) => {
  const base = (filters.path === "" ? pathRoot : filters.path).replace(/\/$/, "")
  return {
    from: filters.from,
    size: pageSize,
    track_total_hits: true,
    sort: [{ _score: { order: "desc" } }, { path: { order: "asc" } }],
    _source: { includes: ["*"], excludes: ["content", "content_translated"] },
    highlight: { fields: { content: highlight } },
    query: {
      bool: {
        filter: clauses(filters, starredIds),
        must: [
          { query_string: { query: filters.q.trim() === "" ? "*" : filters.q, default_operator: "AND" } },
          { match: { type: "Document" } }
        ]
      }
    },
    aggs: {
      contentType: { terms: { field: "contentType", size: 50, order: { _count: "desc" } } },
      language: { terms: { field: "language", size: 50, order: { _count: "desc" } } },
      tags: { terms: { field: "tags", size: 50, order: { _count: "desc" } } },
      dirname: {
        terms: {
          field: "dirname.tree",
          include: `${escapeRegex(base)}/.*`,
          exclude: `${escapeRegex(base)}/.*/.*`,
          size: 50,
          order: { _key: "asc" }
        }
      }
    }
  }
}

/** The most frequent mentions of one named-entity category, for its facet. */
export const entitySearch = (category: string) => ({
  size: 0,
  track_total_hits: true,
  query: {
    bool: { filter: { bool: { must: [{ term: { isHidden: "false" } }, { term: { category } }] } }, must: { term: { type: "NamedEntity" } } }
  },
  aggs: { byMentions: { terms: { field: "mentionNorm", size: 10, order: { _count: "desc" } } } }
})

export interface Bucket {
  readonly key: string
  readonly doc_count: number
}

export interface SearchAnswer {
  readonly hits: {
    readonly total: { readonly value: number }
    readonly hits: ReadonlyArray<{
      readonly _id: string
      readonly _routing?: string
      readonly _source: Readonly<Record<string, unknown>>
      readonly highlight?: { readonly content?: ReadonlyArray<string> }
    }>
  }
  readonly aggregations?: Readonly<Record<string, { readonly buckets: ReadonlyArray<Bucket> }>>
}

/** Words of a Lucene query, for finding them inside a document: field clauses, operators and syntax left out. */
export const plainWords = (query: string) =>
  query
    .replace(/\b[\w.]+:("[^"]*"|\S+)/g, " ")
    .replace(/~\d*/g, " ")
    .replace(/\b(AND|OR|NOT)\b/g, " ")
    .replace(/[()"*?^+!{}[\]\\/]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
