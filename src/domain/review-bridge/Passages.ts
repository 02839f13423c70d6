import { Array as Arr, Effect } from "effect"
import { SearchBackend } from "../../search/SearchBackend.ts"
import { type QueryOptions, queryText } from "../batch-search/BatchQuery.ts"

/** Characters of the passage shown to checkers: a sentence or two around the best match. */
const passageSize = 200
/** Documents highlighted per search request. */
const idsPerRequest = 500

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {}

/**
 * The best-matching passage of each document for a batch-search query, matched words in `<em>` tags, by document
 * id. The query is the batch search's own (phrase, fuzziness), limited to the documents, so the passage shows why
 * the document is a hit; a document matched by its metadata only gets the start of its content.
 */
export const bestPassages = (
  projects: ReadonlyArray<string>,
  query: string,
  options: Pick<QueryOptions, "phraseMatches" | "fuzziness">,
  ids: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const backend = yield* SearchBackend
    const passages = new Map<string, string>()
    for (const chunk of Arr.chunksOf(ids, idsPerRequest)) {
      const response = yield* backend.handle({
        method: "POST",
        path: `${projects.join(",")}/_search`,
        query: new URLSearchParams(),
        body: {
          query: { bool: { must: [{ ids: { values: chunk } }, { query_string: { query: queryText(query, options) } }] } },
          _source: { includes: ["path"] },
          size: chunk.length,
          highlight: { fields: { content: { fragment_size: passageSize, number_of_fragments: 1, no_match_size: passageSize } } }
        }
      })
      if (response.status !== 200) {
        yield* Effect.logWarning("no passages for a batch-search query", { status: response.status })
        continue
      }
      const hits = record(record(response.body)["hits"])["hits"]
      for (const hit of Array.isArray(hits) ? hits : []) {
        const fragments = record(record(hit)["highlight"])["content"]
        const id = record(hit)["_id"]
        if (typeof id === "string" && Array.isArray(fragments) && typeof fragments[0] === "string") passages.set(id, fragments[0])
      }
    }
    return passages
  })
