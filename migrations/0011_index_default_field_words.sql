-- query_string without fields searches the reference's default_field list: besides the content, ten metadata
-- properties, the path split into parts, and the tags. Their words are kept in one indexed tsvector so that such a
-- query is a few index lookups instead of analysing every document's metadata at search time.

-- The words of a text array (the tags), for a generated column (array_to_string itself is only stable).
CREATE FUNCTION quarry_array_words(items text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT array_to_string(items, ' ') $$;

ALTER TABLE documents ADD COLUMN metadata_tsv tsvector GENERATED ALWAYS AS (
  to_tsvector('simple',
    coalesce(metadata->>'tika_metadata_author', '') || ' ' || coalesce(metadata->>'tika_metadata_creator', '') || ' ' ||
    coalesce(metadata->>'tika_metadata_dc_creator', '') || ' ' || coalesce(metadata->>'tika_metadata_dc_title', '') || ' ' ||
    coalesce(metadata->>'tika_metadata_message_from', '') || ' ' || coalesce(metadata->>'tika_metadata_message_to', '') || ' ' ||
    coalesce(metadata->>'tika_metadata_meta_author', '') || ' ' || coalesce(metadata->>'tika_metadata_subject', '') || ' ' ||
    coalesce(metadata->>'tika_metadata_title', '') || ' ' || coalesce(metadata->>'tika_metadata_resourcename', '') || ' ' ||
    regexp_replace(path, '[/\\. ]+', ' ', 'g') || ' ' || quarry_array_words(tags))
) STORED;
CREATE INDEX documents_metadata_tsv ON documents USING gin (metadata_tsv);

CREATE OR REPLACE VIEW search_records AS
SELECT d.project, d.id, 'Document'::text AS type, d.root_id AS routing, d.parent_id IS NOT NULL AS routed,
  NULL::text AS join_parent, d.path, d.dirname, d.dirname_tree, d.content, d.content_tsv, d.content_type,
  quarry_content_type_category(d.content_type) AS content_type_category, d.content_length, d.content_text_length,
  d.content_encoding, d.language, d.metadata, d.extraction_date, d.extraction_level, d.tags, d.ner_tags, d.status,
  d.parent_id AS parent_document, d.root_id AS root_document,
  coalesce(nullif(d.metadata->>'tika_metadata_dc_title', ''), nullif(d.metadata->>'tika_metadata_subject', ''),
    nullif(d.metadata->>'tika_metadata_resourcename', ''), regexp_replace(d.path, '^.*[/\\]', '')) AS title,
  NULL::text AS mention, NULL::text AS mention_norm, NULL::integer AS mention_norm_text_length, NULL::text AS category,
  NULL::bigint[] AS offsets, NULL::text AS extractor, NULL::text AS extractor_language, NULL::boolean AS is_hidden,
  NULL::text AS parts_of_speech, NULL::text AS document_id, d.metadata_tsv
FROM documents d
UNION ALL
SELECT n.project, n.id, 'NamedEntity', n.root_id, true, n.document_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  n.mention, n.mention_norm, n.mention_norm_text_length, n.category, n.offsets, n.extractor, n.extractor_language,
  n.is_hidden, n.parts_of_speech, NULL, NULL
FROM named_entities n
UNION ALL
SELECT p.project, p.id, 'Duplicate', p.document_id, true, p.document_id, p.path, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, p.document_id, NULL
FROM duplicates p;
