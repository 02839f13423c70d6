-- How often a document's content holds its words, as a Bloom filter: a word held at least 2, 4, 8, 16, 32 or 64
-- times (tiers 1 to 6) adds the key "<tier><word>" for each of those tiers. A key sets 4 bits in tiers 1 and 2 and 8 in
-- the higher ones, each taken from a sixteenth of the key's MD5 (a hash every PostgreSQL computes alike, so stored
-- filters stay valid) modulo the filter's length. The filter has 16 bits a key, at most 14,400: a key of the lower
-- tiers then passes by chance about once in 300, and of the higher ones about once in 100,000. The higher tiers hold
-- few documents, so they need the stronger test: with 4 bits, 236 of a common word's 29,647 matches passed its tiers
-- 4 to 6, of which 11 held it 8 times. The fixed 1,024 bits of 0170's filter, crowded by the many words that the long
-- documents holding a medium word repeat, let one in three of those documents through.
-- ts_rank of a one-word query depends only on how many positions the word has (all of weight D, no length
-- normalization). A search ranks on the whole tsvector, stored compressed out of the row, only the documents whose
-- filter may hold the word twice; and to choose the best of many, it bounds each document's rank by its tiers and
-- ranks only those whose bound can reach the page (Leaves.ts, wordQuery; Search.ts).
CREATE FUNCTION quarry_word_key_hash(word text, tier integer, which integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT ('x' || substr(md5(tier::text || word), 1 + 4 * which, 4))::bit(16)::bigint
$$;

-- In PL/pgSQL, setting bytes of a bit string in a loop: the same filter built by a query (bits grouped into bytes,
-- then into text) took 1.0 ms a document against 0.73 (1,853 generated documents). A key's bit positions are
-- quarry_word_key_hash's, read here from the bytes of its one MD5 rather than calling it once a bit (an MD5 each).
CREATE FUNCTION quarry_content_word_counts(words tsvector) RETURNS bit varying
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  hashes bytea[];
  bits integer[];
  size integer;
  filter bytea;
  bit_index integer;
BEGIN
  SELECT array_agg(decode(md5(t.tier::text || l.lexeme), 'hex')), array_agg(CASE WHEN t.tier >= 3 THEN 8 ELSE 4 END)
    INTO hashes, bits
    FROM unnest(words) AS l JOIN (VALUES (1, 2), (2, 4), (3, 8), (4, 16), (5, 32), (6, 64)) AS t(tier, least)
      ON cardinality(l.positions) >= t.least;
  size := least(2 * coalesce(cardinality(hashes), 0) + 1, 1800);
  filter := decode(repeat('00', size), 'hex');
  FOR key IN 1 .. coalesce(cardinality(hashes), 0) LOOP
    FOR which IN 0 .. bits[key] - 1 LOOP
      bit_index := (get_byte(hashes[key], 2 * which) * 256 + get_byte(hashes[key], 2 * which + 1)) % (8 * size);
      filter := set_byte(filter, bit_index / 8, get_byte(filter, bit_index / 8) | (128 >> (bit_index % 8)));
    END LOOP;
  END LOOP;
  RETURN ('x' || encode(filter, 'hex'))::bit varying;
END
$$;

-- The views name the old column, so they are defined again around the change.
DROP VIEW search_records;
DROP VIEW document_records;
ALTER TABLE documents DROP COLUMN content_repeated_word_bits;
DROP FUNCTION quarry_repeated_word_bits(tsvector);
DROP FUNCTION quarry_word_bit(text, integer);

-- Kept in the row, never compressed: a search tests a few bits of it in every match, and each test of a value stored
-- out of the row or compressed reads it whole again (the same search of a common word read 160,000 pages instead of
-- 12,500). Set in the same statement, so that the rewrite filling the column already stores it so.
ALTER TABLE documents ADD COLUMN content_word_counts bit varying
    GENERATED ALWAYS AS (quarry_content_word_counts(content_tsv)) STORED,
  ALTER COLUMN content_word_counts SET STORAGE PLAIN;

CREATE VIEW document_records AS
SELECT d.project, d.id, 'Document'::text AS type, d.root_id AS routing, d.parent_id IS NOT NULL AS routed,
  NULL::text AS join_parent, d.path, d.dirname, d.dirname_tree, d.content, d.content_tsv, d.content_type,
  quarry_content_type_category(d.content_type) AS content_type_category, d.content_length, d.content_text_length,
  d.content_encoding, d.language, d.metadata, d.extraction_date, d.extraction_level, d.tags, d.ner_tags, d.status,
  d.parent_id AS parent_document, d.root_id AS root_document,
  coalesce(nullif(d.metadata->>'tika_metadata_dc_title', ''), nullif(d.metadata->>'tika_metadata_subject', ''),
    nullif(d.metadata->>'tika_metadata_resourcename', ''), regexp_replace(d.path, '^.*[/\\]', '')) AS title,
  NULL::text AS mention, NULL::text AS mention_norm, NULL::integer AS mention_norm_text_length, NULL::text AS category,
  NULL::bigint[] AS offsets, NULL::text AS extractor, NULL::text AS extractor_language, NULL::boolean AS is_hidden,
  NULL::text AS parts_of_speech, NULL::text AS document_id, d.metadata_tsv, d.content_word_counts
FROM documents d;

CREATE VIEW search_records AS
SELECT * FROM document_records
UNION ALL
SELECT n.project, n.id, 'NamedEntity', n.root_id, true, n.document_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  n.mention, n.mention_norm, n.mention_norm_text_length, n.category, n.offsets, n.extractor, n.extractor_language,
  n.is_hidden, n.parts_of_speech, NULL, NULL, NULL
FROM named_entities n
UNION ALL
SELECT p.project, p.id, 'Duplicate', p.document_id, true, p.document_id, p.path, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, p.document_id, NULL, NULL
FROM duplicates p;
