-- Documents alone, with the columns of search_records: what a search reads when its query keeps to Documents (the
-- client's result list and facets always do). Over this plain view the planner reads only the columns a statement
-- needs, so that a facet over a whole project is an index-only scan; through the union it read every row whole.
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
  NULL::text AS parts_of_speech, NULL::text AS document_id, d.metadata_tsv
FROM documents d;

-- The union keeps its Documents part in one place.
CREATE OR REPLACE VIEW search_records AS
SELECT * FROM document_records
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
