import type { BatchSearchRow } from "./BatchSearch.ts"

/** Options of a batch search that shape each of its queries. */
export type QueryOptions = Pick<BatchSearchRow, "phraseMatches" | "fuzziness" | "fileTypes" | "paths" | "tags">

/**
 * The query_string text of a CSV line: a phrase (with slop = fuzziness) when phrase
 * matching is on, else every space-separated token with `~fuzziness` (edit distance) when fuzziness is set.
 */
export const queryText = (query: string, options: Pick<QueryOptions, "phraseMatches" | "fuzziness">) => {
  if (options.phraseMatches) return options.fuzziness > 0 ? `"${query}"~${options.fuzziness}` : `"${query}"`
  if (options.fuzziness > 0)
    return query
      .split(" ")
      .map((token) => (token === "" ? token : `${token}~${options.fuzziness}`))
      .join(" ")
  return query
}

/**
 * The Elasticsearch query of one batch-search line: Documents only, the query_string over the index's default
 * fields, the content types, tags and folders of the batch search (documents must be under every folder given,
 * as in the reference). `content` is left out of the hits.
 */
export const searchBody = (query: string, options: QueryOptions, from: number, size: number) => ({
  query: {
    bool: {
      must: [
        { term: { type: "Document" } },
        { query_string: { query: queryText(query, options) } },
        ...(options.fileTypes.length > 0 ? [{ terms: { contentType: options.fileTypes } }] : []),
        ...(options.tags.length > 0 ? [{ terms: { tags: options.tags } }] : []),
        ...options.paths.map((path) => ({ term: { "dirname.tree": path } }))
      ]
    }
  },
  _source: { excludes: ["content"] },
  from,
  size
})

/** What a stored result needs of a hit. */
export interface Hit {
  readonly project: string
  readonly id: string
  readonly rootId: string
  readonly path: string
  readonly contentType: string | null
  readonly contentLength: number | null
  readonly creationDate: Date | null
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {}
const text = (value: unknown) => (typeof value === "string" ? value : null)

/** The value of `tika_metadata_dcterms_created` read as a date; null when absent or not a date. */
export const creationDateOf = (created: unknown) => {
  const value = text(created)
  if (value === null) return null
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

/** The hits of an Elasticsearch search response. */
export const hitsOf = (response: unknown): ReadonlyArray<Hit> => {
  const hits = record(record(response)["hits"])["hits"]
  if (!Array.isArray(hits)) return []
  return hits.map((raw) => {
    const hit = record(raw)
    const source = record(hit["_source"])
    const id = text(hit["_id"]) ?? ""
    const length = source["contentLength"]
    return {
      project: text(hit["_index"]) ?? "",
      id,
      rootId: text(hit["_routing"]) ?? text(source["rootDocument"]) ?? id,
      path: text(source["path"]) ?? "",
      contentType: text(source["contentType"]),
      contentLength: typeof length === "number" ? length : null,
      creationDate: creationDateOf(record(source["metadata"])["tika_metadata_dcterms_created"])
    }
  })
}

/** The reason an Elasticsearch error body gives (its first root cause), for the batch search's error message. */
export const errorReason = (response: unknown): string => {
  const error = record(record(response)["error"])
  const rootCause = Array.isArray(error["root_cause"]) ? record(error["root_cause"][0]) : {}
  return text(rootCause["reason"]) ?? text(error["reason"]) ?? JSON.stringify(response)
}
