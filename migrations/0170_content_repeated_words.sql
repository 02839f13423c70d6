-- Which words a document's content repeats, as a Bloom filter of 1,024 bits: each word found more than once sets
-- two bits, each chosen by 10 bits of its MD5 (a hash every PostgreSQL computes alike, so stored filters stay valid).
-- ts_rank of a one-word query depends only on the word's positions (all of weight D, no length normalization), so a
-- matched document whose filter lacks one of the word's bits holds it once and ranks a known constant. A search then
-- reads the whole tsvector, stored compressed out of the row, only for documents that may repeat the word
-- (Leaves.ts, wordQuery). With about 84 repeated words a document (100,000 generated ones), a word held once finds
-- both its bits set by others in about one document in 40; with one bit a word, in one in 12.
CREATE FUNCTION quarry_word_bit(word text, which integer) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT ('x' || substr(md5(word), 1 + 8 * which, 8))::bit(32)::integer & 1023
$$;

CREATE FUNCTION quarry_repeated_word_bits(words tsvector) RETURNS bit(1024)
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT coalesce(
    bit_or((B'1'::bit(1024) >> quarry_word_bit(l.lexeme, 0)) | (B'1'::bit(1024) >> quarry_word_bit(l.lexeme, 1))),
    repeat('0', 1024)::bit(1024))
  FROM unnest(words) AS l WHERE cardinality(l.positions) > 1
$$;

ALTER TABLE documents ADD COLUMN content_repeated_word_bits bit(1024)
  GENERATED ALWAYS AS (quarry_repeated_word_bits(content_tsv)) STORED;

CREATE OR REPLACE VIEW document_records AS
SELECT d.project, d.id, 'Document'::text AS type, d.root_id AS routing, d.parent_id IS NOT NULL AS routed,
  NULL::text AS join_parent, d.path, d.dirname, d.dirname_tree, d.content, d.content_tsv, d.content_type,
  quarry_content_type_category(d.content_type) AS content_type_category, d.content_length, d.content_text_length,
  d.content_encoding, d.language, d.metadata, d.extraction_date, d.extraction_level, d.tags, d.ner_tags, d.status,
  d.parent_id AS parent_document, d.root_id AS root_document,
  coalesce(nullif(d.metadata->>'tika_metadata_dc_title', ''), nullif(d.metadata->>'tika_metadata_subject', ''),
    nullif(d.metadata->>'tika_metadata_resourcename', ''), regexp_replace(d.path, '^.*[/\\]', '')) AS title,
  NULL::text AS mention, NULL::text AS mention_norm, NULL::integer AS mention_norm_text_length, NULL::text AS category,
  NULL::bigint[] AS offsets, NULL::text AS extractor, NULL::text AS extractor_language, NULL::boolean AS is_hidden,
  NULL::text AS parts_of_speech, NULL::text AS document_id, d.metadata_tsv, d.content_repeated_word_bits
FROM documents d;

CREATE OR REPLACE VIEW search_records AS
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
