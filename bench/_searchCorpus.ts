/**
 * The corpus the search and batch benchmarks query: BENCH_SEARCH_DOCUMENTS (default 100 000) documents made of words
 * `term1` … `term2000` drawn so that low numbers are frequent (Zipf-like), in five content types, four languages,
 * a folder tree and a few tags, generated in SQL.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const documentCount = Number(process.env.BENCH_SEARCH_DOCUMENTS ?? 100_000)
export const corpusProject = "bench"
const vocabulary = 2_000
const wordsPerDocument = 60

/** The corpus in two statements: generate_series rows whose words are drawn in SQL, the tsvector built there too. */
export const generateSearchCorpus = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO document_indices (project) VALUES (${corpusProject}) ON CONFLICT DO NOTHING`
  yield* sql`SELECT setseed(0.42)`
  yield* sql`
    INSERT INTO documents (project, id, root_id, parent_id, path, dirname, dirname_tree, content, content_type, content_length,
      content_text_length, content_encoding, language, metadata, extraction_date, extraction_level, tags, ner_tags, status, content_tsv)
    SELECT ${corpusProject}, 'doc-' || g, 'doc-' || g, NULL, dir || '/file-' || g || '.txt', dir,
      ARRAY['/data', '/data/d' || (g % 20), dir], words, (ARRAY['application/pdf', 'text/plain', 'message/rfc822', 'text/html', 'application/msword'])[1 + g % 5],
      1000 + (g * 37) % 100000, length(words), 'UTF-8', (ARRAY['ENGLISH', 'FRENCH', 'SPANISH', 'GERMAN'])[1 + (g / 7) % 4],
      jsonb_build_object('tika_metadata_resourcename', 'file-' || g || '.txt'), timestamptz '2021-01-01' + (g % 1000) * interval '1 day', 0,
      CASE g % 10 WHEN 0 THEN ARRAY['urgent'] WHEN 1 THEN ARRAY['Review', 'urgent'] WHEN 2 THEN ARRAY['archive'] ELSE '{}'::text[] END,
      '{}', 'INDEXED', to_tsvector('simple', words)
    FROM generate_series(1, ${documentCount}) AS g
    CROSS JOIN LATERAL (SELECT '/data/d' || (g % 20) || '/s' || (g % 7) AS dir) AS d
    CROSS JOIN LATERAL (
      SELECT string_agg('term' || floor(power(${vocabulary}::float8, random()))::int, ' ') AS words
      FROM generate_series(1, ${wordsPerDocument}) AS w WHERE g > 0
    ) AS c`
  yield* sql`ANALYZE documents`
})
