/**
 * The records of the fake Elasticsearch cluster (fakeElasticsearch.ts) and what its requests do with them: `_bulk`
 * items, partial updates, `_update_by_query`, gets and searches, with the bodies a real cluster answers.
 */

export interface StoredRecord {
  readonly source: Record<string, unknown>
  readonly routing: string | undefined
  readonly version: number
}

export interface FakeIndex {
  readonly settings: unknown
  readonly mappings: unknown
  readonly records: Map<string, StoredRecord>
}

export const errorBody = (status: number, type: string, reason: string, extra: Record<string, unknown> = {}) => ({
  error: { root_cause: [{ type, reason, ...extra }], type, reason, ...extra },
  status
})

/** What bulk writes use of the cluster: its indices, and the ids whose create it refuses. */
interface Cluster {
  readonly indices: Map<string, FakeIndex>
  readonly refuse: ReadonlyMap<string, number>
}

const searchKeys = new Set(["query", "size", "from", "aggs", "aggregations", "sort", "_source", "highlight", "track_total_hits"])

export interface Answer {
  readonly status: number
  readonly body?: unknown
}

const bulkItem = (
  fake: Cluster,
  action: string,
  meta: Record<string, unknown>,
  source: Record<string, unknown>,
  defaultIndex: string | undefined
) => {
  const index = String(meta["_index"] ?? defaultIndex)
  const id = String(meta["_id"])
  const routing = typeof meta["routing"] === "string" ? meta["routing"] : undefined
  const target = fake.indices.get(index) ?? { settings: {}, mappings: {}, records: new Map() }
  fake.indices.set(index, target)
  const refused = fake.refuse.get(id)
  if (refused !== undefined) {
    const type = refused === 429 ? "es_rejected_execution_exception" : "mapper_parsing_exception"
    return { [action]: { _index: index, _type: "_doc", _id: id, status: refused, error: { type, reason: `refused [${id}]` } } }
  }
  const existing = target.records.get(id)
  if (action === "update") return updateItem(target, index, id, existing, source)
  if (action === "create" && existing !== undefined) {
    const reason = `[${id}]: version conflict, document already exists (current version [${existing.version}])`
    return {
      create: {
        _index: index,
        _type: "_doc",
        _id: id,
        status: 409,
        error: { type: "version_conflict_engine_exception", reason, index_uuid: "kZtx0yrTQeqbGWp2Tg8xRA", shard: "0", index }
      }
    }
  }
  const version = (existing?.version ?? 0) + 1
  target.records.set(id, { source, routing, version })
  const result = existing === undefined ? "created" : "updated"
  return {
    [action]: {
      _index: index,
      _type: "_doc",
      _id: id,
      _version: version,
      result,
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: target.records.size - 1,
      _primary_term: 1,
      status: existing === undefined ? 201 : 200
    }
  }
}

/** A bulk `update` with a partial `doc`: merged into the stored source; 404 when the record is absent. */
const updateItem = (target: FakeIndex, index: string, id: string, existing: StoredRecord | undefined, body: Record<string, unknown>) => {
  if (existing === undefined) {
    const reason = `[_doc][${id}]: document missing`
    return { update: { _index: index, _type: "_doc", _id: id, status: 404, error: { type: "document_missing_exception", reason, index } } }
  }
  const version = existing.version + 1
  target.records.set(id, { ...existing, source: { ...existing.source, ...(body["doc"] as Record<string, unknown>) }, version })
  return { update: { _index: index, _type: "_doc", _id: id, _version: version, result: "updated", status: 200 } }
}

export type Clause = Record<string, unknown>

/**
 * Whether a record matches the query clauses Quarry's own writes use: `term` (on a value or an array), `ids` and
 * `bool` (filter, must, must_not). Other clauses (query_string and the like) match everything, as the fake does
 * not rank text.
 */
export const matches = (id: string, source: Record<string, unknown>, query: Clause | undefined): boolean => {
  if (query === undefined) return true
  if (query["term"] !== undefined) {
    const [field, expected] = Object.entries(query["term"] as Clause)[0]!
    const value = typeof expected === "object" && expected !== null ? (expected as Clause)["value"] : expected
    const stored = source[field]
    return Array.isArray(stored) ? stored.includes(value) : stored === value
  }
  if (query["ids"] !== undefined) return (query["ids"] as { values: ReadonlyArray<string> }).values.includes(id)
  if (query["bool"] !== undefined) {
    const bool = query["bool"] as Record<string, Clause | ReadonlyArray<Clause> | undefined>
    const list = (name: string) => [bool[name] ?? []].flat()
    return (
      [...list("filter"), ...list("must")].every((clause) => matches(id, source, clause)) &&
      !list("must_not").some((clause) => matches(id, source, clause))
    )
  }
  return true
}

/** `_update_by_query` with a script of the form `ctx._source.<field> = true|false`. */
export const updateByQuery = (index: FakeIndex, body: Record<string, unknown>): Answer => {
  const script = String((body["script"] as { source?: string } | undefined)?.source ?? "")
  const assignment = /^ctx\._source\.(\w+) = (true|false)$/.exec(script)
  if (assignment === null) return { status: 400, body: errorBody(400, "script_exception", `compile error [${script}]`) }
  let updated = 0
  for (const [id, record] of index.records) {
    if (!matches(id, record.source, body["query"] as Clause | undefined)) continue
    index.records.set(id, {
      ...record,
      source: { ...record.source, [assignment[1]!]: assignment[2] === "true" },
      version: record.version + 1
    })
    updated += 1
  }
  return {
    status: 200,
    body: {
      took: 4,
      timed_out: false,
      total: updated,
      updated,
      deleted: 0,
      batches: updated === 0 ? 0 : 1,
      version_conflicts: 0,
      noops: 0,
      failures: []
    }
  }
}

export const bulk = (fake: Cluster, body: string, defaultIndex: string | undefined): Answer => {
  const lines = body.split("\n").filter((line) => line.trim() !== "")
  const items: Array<unknown> = []
  for (let i = 0; i < lines.length; i += 2) {
    const action = JSON.parse(lines[i]!) as Record<string, Record<string, unknown>>
    const [name, meta] = Object.entries(action)[0]!
    items.push(bulkItem(fake, name, meta, JSON.parse(lines[i + 1]!) as Record<string, unknown>, defaultIndex))
  }
  const errors = items.some((item) => Object.values(item as Record<string, { status: number }>)[0]!.status >= 300)
  return { status: 200, body: { took: 3, errors, items } }
}

export const docView = (index: string, id: string, record: StoredRecord | undefined, includes: string | null) => {
  if (record === undefined) return { _index: index, _type: "_doc", _id: id, found: false }
  const source =
    includes === null
      ? record.source
      : Object.fromEntries(Object.entries(record.source).filter(([key]) => includes.split(",").includes(key)))
  return {
    _index: index,
    _type: "_doc",
    _id: id,
    _version: record.version,
    _seq_no: 0,
    _primary_term: 1,
    ...(record.routing === undefined ? {} : { _routing: record.routing }),
    found: true,
    _source: source
  }
}

/** The words of the request's `query_string` clauses, wherever they are nested. */
const queryStringWords = (clause: unknown): ReadonlyArray<string> => {
  if (typeof clause !== "object" || clause === null) return []
  const queryString = (clause as Clause)["query_string"] as { query?: unknown } | undefined
  const own = typeof queryString?.query === "string" ? (queryString.query.match(/[\p{L}\p{N}]+/gu) ?? []) : []
  return [...own, ...Object.values(clause).flatMap(queryStringWords)]
}

/**
 * A highlight of `content` as the cluster gives it when the request asks for one: the text's first
 * `fragment_size` characters (the fake does not pick passages) with the query's words in `<em>` tags; no entry when
 * the content is missing.
 */
const contentHighlight = (source: Record<string, unknown>, body: Record<string, unknown>) => {
  const field = ((body["highlight"] as { fields?: Record<string, { fragment_size?: number }> } | undefined)?.fields ?? {})["content"]
  const content = source["content"]
  if (field === undefined || typeof content !== "string") return {}
  const words = new Set(queryStringWords(body["query"]).map((word) => word.toLowerCase()))
  const fragment = content
    .slice(0, field.fragment_size ?? 100)
    .replace(/[\p{L}\p{N}]+/gu, (word) => (words.has(word.toLowerCase()) ? `<em>${word}</em>` : word))
  return { highlight: { content: [fragment] } }
}

const isDocument = (record: StoredRecord) => record.source["type"] === "Document"

/** A search over the records of the listed indices. */
export const search = (
  listed: ReadonlyArray<{ readonly name: string; readonly id: string; readonly record: StoredRecord }>,
  body: Record<string, unknown>
): Answer => {
  const unknown = Object.keys(body).find((key) => !searchKeys.has(key))
  if (unknown !== undefined) {
    const reason = `Unknown key for a START_OBJECT in [${unknown}].`
    return { status: 400, body: errorBody(400, "parsing_exception", reason, { line: 1, col: 2 + unknown.length + 3 }) }
  }
  const query = body["query"] as Clause | undefined
  const size = typeof body["size"] === "number" ? body["size"] : 10_000
  const hits = listed
    .filter(({ id, record }) => isDocument(record) && matches(id, record.source, query))
    .slice(0, size)
    .map(({ name, id, record }) => ({
      _index: name,
      _type: "_doc",
      _id: id,
      _score: 1,
      ...(record.routing === undefined ? {} : { _routing: record.routing }),
      _source: record.source,
      ...contentHighlight(record.source, body)
    }))
  return {
    status: 200,
    body: {
      took: 2,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: { total: { value: hits.length, relation: "eq" }, max_score: hits.length === 0 ? null : 1, hits }
    }
  }
}
