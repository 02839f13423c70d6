import { Metric } from "effect"

/**
 * The embedded engine's answer cache, its counterpart of Elasticsearch's request cache: the answers of recent
 * searches and counts, kept as JSON text (each reader parses its own copy) within a byte budget, least recently
 * used first out. A key names the generation of every index the request reads (migration 0060), so any change to
 * their records makes the old answers unreachable; they age out of the budget.
 */

/** Served from the cache, so that operators (and tests) see how often a repeated search skips the database. */
export const answerCacheHits = Metric.counter("quarry_search_answer_cache_hits", {
  description: "searches and counts of the embedded engine answered from its answer cache or by an identical one already running",
  incremental: true
})

/** One index a request reads, at the generation it was read at. */
export interface IndexGeneration {
  readonly project: string
  readonly generation: string
}

/** A request whose answer depends on the clock (`now` in date math) is answered afresh every time. */
const dependsOnTheClock = (text: string) => /\bnow\b/i.test(text)

/** The cache key of a request, or undefined when its answer must not be cached. */
export const answerKey = (kind: string, indices: ReadonlyArray<IndexGeneration>, body: unknown, query: URLSearchParams) => {
  const bodyText = JSON.stringify(body ?? null)
  const queryText = [...query.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&")
  if (dependsOnTheClock(bodyText) || dependsOnTheClock(queryText)) return undefined
  return `${kind}\n${indices.map((index) => `${index.project}@${index.generation}`).join(",")}\n${queryText}\n${bodyText}`
}

export interface AnswerCache {
  /** The JSON text of a kept answer. */
  readonly get: (key: string) => string | undefined
  readonly set: (key: string, text: string) => void
}

/** A cache of at most `budgetBytes` of answers (keys included); an answer larger than an eighth of it is not kept. */
export const makeAnswerCache = (budgetBytes: number): AnswerCache => {
  // A Map iterates in insertion order: re-inserting an entry on every hit keeps the least recently used first.
  const entries = new Map<string, string>()
  let usedBytes = 0
  const sizeOf = (key: string, text: string) => 2 * (key.length + text.length)

  const get = (key: string) => {
    const text = entries.get(key)
    if (text === undefined) return undefined
    entries.delete(key)
    entries.set(key, text)
    return text
  }

  const set = (key: string, text: string) => {
    const size = sizeOf(key, text)
    if (size > budgetBytes / 8) return
    const previous = entries.get(key)
    if (previous !== undefined) {
      entries.delete(key)
      usedBytes -= sizeOf(key, previous)
    }
    entries.set(key, text)
    usedBytes += size
    for (const [oldestKey, oldestText] of entries) {
      if (usedBytes <= budgetBytes) break
      entries.delete(oldestKey)
      usedBytes -= sizeOf(oldestKey, oldestText)
    }
  }

  return { get, set }
}
