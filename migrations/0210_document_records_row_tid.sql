-- Documents' records name where their row is. A search that ranks in two passes computes the exact score of the
-- records a first pass could not bound tightly enough, each found again from `matched`: by its index and id that was a
-- probe of the primary key for each, and a word that most of 10,000 real pages hold many times ranked 7,586 records
-- so (254 ms); by the row's place it is a TID scan (179-218 ms). Only this view has it: the records of the others
-- are found again by id.
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
  NULL::text AS parts_of_speech, NULL::text AS document_id, d.metadata_tsv, d.content_word_counts, d.ctid AS row_tid
FROM documents d;
