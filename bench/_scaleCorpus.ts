/**
 * Generated corpora of the search-scale benchmark: documents of pseudo-words drawn with Zipf frequencies (rank r
 * drawn with probability ∝ 1/r, frequent words short, as in real text), one word in 200 drawn instead from a space
 * so large that it is in no other document (the names, numbers and misspellings that make a real corpus's vocabulary
 * grow with it, so that rare words exist at every size), log-normal lengths (median ≈ 3 KB, from
 * 200 bytes to 1 MB), written into the real `documents` table with the columns and the tsvector Quarry's indexer
 * writes. Rows are built in Node, each document from a seed of its own; on a server they are streamed with COPY into
 * a staging table, 20 000 at a time on two connections, and moved into `documents` by an INSERT … SELECT computing
 * the tsvector; on PGlite (whose socket does not speak COPY FROM STDIN) they are inserted a batch a statement, the
 * way the indexer inserts.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import { pipeline } from "node:stream/promises"
import { Readable } from "node:stream"
import { DatabaseInfo } from "../src/db/Database.ts"
import { dirnameAncestors, indexedPrefix } from "../src/search/postgres/TextIndex.ts"

const vocabularySize = 60_000
const medianBytes = 3_000
const lengthSigma = 1.1
const minBytes = 200
const maxBytes = 1024 * 1024
/** Where every generated path lies, for the folder facet. */
export const generatedRoot = "/corpus"

/** mulberry32: a small seeded generator, so that every run generates the same corpus. */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const onsets = [
  "b",
  "c",
  "d",
  "f",
  "g",
  "h",
  "j",
  "k",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "w",
  "z",
  "br",
  "ch",
  "cl",
  "dr",
  "fl",
  "gr",
  "pl",
  "pr",
  "sh",
  "st",
  "th",
  "tr"
]
const vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"]
const codas = ["", "", "", "n", "r", "s", "l", "t", "m", "nd", "st", "rk"]

/** A pronounceable pseudo-word of `syllables` syllables drawn with `next`. */
const pseudoWord = (next: () => number, syllables: number) => {
  const pick = (parts: ReadonlyArray<string>) => parts[Math.floor(next() * parts.length)]!
  let word = ""
  for (let s = 0; s < syllables; s++) word += pick(onsets) + pick(vowels) + pick(codas)
  return word
}

/** Distinct pronounceable pseudo-words, shortest first: rank 1, the most frequent word, is among the shortest. */
const vocabulary = (() => {
  const next = random(1)
  const words = new Set<string>()
  while (words.size < vocabularySize) words.add(pseudoWord(next, 1 + Math.floor(next() * next() * 4)))
  return [...words].sort((a, b) => a.length - b.length)
})()

/** Cumulative Zipf probabilities of the ranks, for sampling by binary search. */
const cumulative = (() => {
  const weights = new Float64Array(vocabularySize)
  let total = 0
  for (let rank = 0; rank < vocabularySize; rank++) total = weights[rank] = total + 1 / (rank + 1)
  return weights.map((weight) => weight / total)
})()

const zipfWord = (u: number) => {
  let low = 0
  let high = vocabularySize - 1
  while (low < high) {
    const middle = (low + high) >>> 1
    if (cumulative[middle]! < u) low = middle + 1
    else high = middle
  }
  return vocabulary[low]!
}

/** A log-normal byte length (Box–Muller), clamped to the corpus's range. */
const documentBytes = (next: () => number) => {
  const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
  return Math.min(maxBytes, Math.max(minBytes, Math.round(medianBytes * Math.exp(lengthSigma * normal))))
}

/** The share of words drawn outside the vocabulary, each of them most likely in one document of any corpus. */
const uniqueWordShare = 1 / 200

const text = (next: () => number, bytes: number) => {
  const words: Array<string> = []
  let length = 0
  while (length < bytes) {
    // Four syllables, drawn from 6·10¹³ words: none of the vocabulary's 60,000, and none of the corpus's other such words.
    const word = next() < uniqueWordShare ? pseudoWord(next, 4) : zipfWord(next())
    words.push(word)
    length += word.length + 1
  }
  return words.join(" ")
}

const contentTypes = [
  "application/pdf",
  "application/pdf",
  "text/plain",
  "message/rfc822",
  "text/html",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
]
const languages = ["ENGLISH", "ENGLISH", "ENGLISH", "FRENCH", "SPANISH", "GERMAN"]
const tagSets: ReadonlyArray<ReadonlyArray<string>> = [[], [], [], [], [], [], ["urgent"], ["review", "urgent"], ["archive"], ["invoice"]]
const dayMs = 86_400_000
const firstDate = Date.UTC(2019, 0, 1)

interface GeneratedDocument {
  readonly id: string
  readonly path: string
  readonly dirname: string
  readonly content: string
  readonly contentType: string
  readonly language: string
  readonly extractionDate: string
  readonly tags: ReadonlyArray<string>
}

/** Document `n` of a corpus, from a generator seeded with `n`: the same document in every run, whatever the order. */
const generatedDocument = (n: number): GeneratedDocument => {
  const next = random(Math.imul(n, 0x9e3779b1) ^ 42)
  const dirname = `${generatedRoot}/box-${n % 40}/folder-${Math.floor(next() * 25)}`
  return {
    id: `gen-${n}`,
    path: `${dirname}/doc-${n}.txt`,
    dirname,
    content: text(next, documentBytes(next)),
    contentType: contentTypes[Math.floor(next() * contentTypes.length)]!,
    language: languages[Math.floor(next() * languages.length)]!,
    extractionDate: new Date(firstDate + Math.floor(next() * 1_500) * dayMs).toISOString(),
    tags: tagSets[Math.floor(next() * tagSets.length)]!
  }
}

function* generatedDocuments(first: number, last: number) {
  for (let n = first; n <= last; n++) yield generatedDocument(n)
}

/** The folded, capped text the indexer turns into `content_tsv`, sent only when it differs from the content. */
const indexedOrNull = (content: string) => {
  const indexed = indexedPrefix(content)
  return indexed === content ? null : indexed
}

/** A COPY text-format field: backslash, tab, newline and carriage return escaped; null as \N. */
const copyField = (value: string | null) =>
  value === null ? "\\N" : value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")

/** Postgres array literal of plain words and paths (no quotes, commas or braces in them). */
const arrayLiteral = (items: ReadonlyArray<string>) => `{${items.join(",")}}`

const stagingColumns = "id, path, dirname, dirname_tree, content, content_type, language, extraction_date, tags, indexed"

const copyLine = (d: GeneratedDocument) =>
  [
    d.id,
    d.path,
    d.dirname,
    arrayLiteral(dirnameAncestors(d.dirname)),
    d.content,
    d.contentType,
    d.language,
    d.extractionDate,
    arrayLiteral(d.tags),
    indexedOrNull(d.content)
  ]
    .map(copyField)
    .join("\t") + "\n"

/** COPY text in chunks of about 4 MB, so that the stream neither holds the part nor writes a line at a time. */
async function* copyText(first: number, last: number) {
  let chunk = ""
  for (const document of generatedDocuments(first, last)) {
    chunk += copyLine(document)
    if (chunk.length > 4 * 1024 * 1024) {
      yield chunk
      chunk = ""
    }
  }
  if (chunk !== "") yield chunk
}

/** The documents columns Quarry's indexer writes, from rows of the staging table or of a JSON batch. */
const insertDocuments = (project: string, source: string) => `
  INSERT INTO documents (project, id, root_id, parent_id, path, dirname, dirname_tree, content, content_type, content_length,
    content_text_length, content_encoding, language, metadata, extraction_date, extraction_level, tags, ner_tags, status,
    extraction_error, content_tsv)
  SELECT '${project}', id, id, NULL, path, dirname, dirname_tree, content, content_type, octet_length(content), length(content),
    'UTF-8', language, jsonb_build_object('tika_metadata_resourcename', regexp_replace(path, '^.*/', '')), extraction_date, 0,
    tags, '{}', 'INDEXED', NULL, to_tsvector('simple', coalesce(indexed, content))
  FROM ${source}`

/** Documents per COPY on the server: parts go through two connections, so that the database uses both cores. */
const partSize = 20_000

/** Server: parts COPYed into a temporary staging table, each moved by one INSERT … SELECT, on connections of their own. */
const loadByCopy = (project: string, count: number) =>
  Effect.gen(function* () {
    const { config } = yield* PgClient.PgClient
    const connect = async () => {
      const client = new pg.Client(
        config.url !== undefined
          ? { connectionString: Redacted.value(config.url) }
          : { host: config.host, port: config.port, database: config.database, user: config.username }
      )
      await client.connect()
      await client.query(`CREATE TEMPORARY TABLE scale_staging (id text, path text, dirname text, dirname_tree text[], content text,
        content_type text, language text, extraction_date timestamptz, tags text[], indexed text)`)
      // Compressed once, when it reaches documents.
      await client.query("ALTER TABLE scale_staging ALTER COLUMN content SET STORAGE EXTERNAL, ALTER COLUMN indexed SET STORAGE EXTERNAL")
      return client
    }
    const parts = Array.from(
      { length: Math.ceil(count / partSize) },
      (_, i) => [i * partSize + 1, Math.min(count, (i + 1) * partSize)] as const
    )
    const clients = yield* Effect.acquireRelease(
      Effect.promise(() => Promise.all([connect(), connect()])),
      (clients) => Effect.promise(() => Promise.all(clients.map((client) => client.end())))
    )
    yield* Effect.forEach(
      clients,
      (client) =>
        Effect.promise(async () => {
          for (let part = parts.shift(); part !== undefined; part = parts.shift()) {
            await pipeline(Readable.from(copyText(...part)), client.query(copyFrom(`COPY scale_staging (${stagingColumns}) FROM STDIN`)))
            await client.query(insertDocuments(project, "scale_staging"))
            await client.query("TRUNCATE scale_staging")
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
  }).pipe(Effect.scoped)

/** PGlite: batches of rows as one JSON parameter, as the indexer sends them. */
const loadByBatches = (project: string, count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rowsOf = (documents: ReadonlyArray<GeneratedDocument>) =>
      JSON.stringify(
        documents.map((d) => ({
          id: d.id,
          path: d.path,
          dirname: d.dirname,
          dirname_tree: dirnameAncestors(d.dirname),
          content: d.content,
          content_type: d.contentType,
          language: d.language,
          extraction_date: d.extractionDate,
          tags: d.tags,
          indexed: indexedOrNull(d.content)
        }))
      )
    const statement = insertDocuments(
      project,
      `json_to_recordset($1::json) AS r(id text, path text, dirname text, dirname_tree text[],
      content text, content_type text, language text, extraction_date timestamptz, tags text[], indexed text)`
    )
    let batch: Array<GeneratedDocument> = []
    let characters = 0
    for (const document of generatedDocuments(1, count)) {
      batch.push(document)
      characters += document.content.length
      if (characters > 8 * 1024 * 1024) {
        yield* sql.unsafe(statement, [rowsOf(batch)])
        batch = []
        characters = 0
      }
    }
    if (batch.length > 0) yield* sql.unsafe(statement, [rowsOf(batch)])
  })

/**
 * Runs `load` with the documents table's secondary indexes dropped, then creates them again from their own
 * definitions: building a GIN index once is far cheaper than growing it row by row. Its triggers stay, so that
 * what they maintain (index generations, the index's word list) is written as the indexer's inserts write it.
 */
const withoutSecondaryIndexes = <A, E, R>(load: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const indexes = yield* sql<{ name: string; definition: string }>`
      SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'documents' AND indexname <> 'documents_pkey'`
    for (const index of indexes) yield* sql.unsafe(`DROP INDEX ${index.name}`)
    const result = yield* load
    const { kind } = yield* DatabaseInfo
    // Two builds at once on the server, one a core (PGlite has one connection); the content's GIN index, by far the
    // longest, starts first.
    const longestFirst = [...indexes].sort(
      (a, b) => Number(b.name === "documents_content_tsv") - Number(a.name === "documents_content_tsv")
    )
    yield* Effect.forEach(
      longestFirst,
      ({ definition }) =>
        sql.withTransaction(
          Effect.gen(function* () {
            // The whole GIN build in memory on the server; PGlite's WebAssembly heap is kept to its default.
            if (kind === "postgres") yield* sql`SET LOCAL maintenance_work_mem = '1GB'`
            yield* sql.unsafe(definition)
          })
        ),
      { concurrency: kind === "postgres" ? 2 : 1, discard: true }
    )
    return result
  })

/** `count` generated documents in `project`, its index row, and fresh planner statistics. */
export const generateScaleCorpus = (project: string, count: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { kind } = yield* DatabaseInfo
    // First, as the indexer creates the index before its documents.
    yield* sql`INSERT INTO document_indices (project) VALUES (${project}) ON CONFLICT DO NOTHING`
    yield* withoutSecondaryIndexes(kind === "postgres" ? loadByCopy(project, count) : loadByBatches(project, count))
    // The whole database: the triggers' tables (the word list) were written too.
    yield* sql`ANALYZE`
  })
