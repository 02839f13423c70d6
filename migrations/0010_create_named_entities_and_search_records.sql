-- Named entities found in documents (legacy-api-reference §6.5): children of the document they were found in,
-- routed by that document's root. The NER pipelines write them; the search engine reads them through has_child,
-- has_parent, parent_id and `type:NamedEntity` queries.
CREATE TABLE named_entities (
  project varchar(255) NOT NULL,
  id varchar(128) NOT NULL,
  -- The document the mention was found in (the join parent).
  document_id varchar(96) NOT NULL,
  -- The routing: the root document of `document_id`.
  root_id varchar(96) NOT NULL,
  mention text NOT NULL,
  mention_norm text NOT NULL,
  mention_norm_text_length integer NOT NULL,
  category varchar(32) NOT NULL,
  offsets bigint[] NOT NULL DEFAULT '{}',
  extractor varchar(32) NOT NULL,
  extractor_language varchar(64) NOT NULL,
  is_hidden boolean NOT NULL DEFAULT false,
  parts_of_speech text,
  PRIMARY KEY (project, id)
);
CREATE INDEX named_entities_document ON named_entities (project, document_id);
CREATE INDEX named_entities_mention_norm ON named_entities (project, mention_norm);
CREATE INDEX named_entities_category ON named_entities (project, category);

-- A timestamp from a metadata string, or NULL when it is not one (dynamic date fields ignore malformed values).
CREATE FUNCTION quarry_try_timestamptz(value text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF value IS NULL OR value !~ '^\d{4}-\d{2}-\d{2}' THEN
    RETURN NULL;
  END IF;
  RETURN value::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;

-- Optimal string alignment distance (Levenshtein plus transpositions), the distance of Lucene's fuzzy queries;
-- gives up early (returns max_distance + 1) once the distance must exceed max_distance.
CREATE FUNCTION quarry_edit_distance(a text, b text, max_distance integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  la integer := length(a);
  lb integer := length(b);
  previous2 integer[];
  previous integer[];
  current integer[];
  cost integer;
  best integer;
BEGIN
  IF abs(la - lb) > max_distance THEN
    RETURN max_distance + 1;
  END IF;
  previous := array(SELECT generate_series(0, lb));
  FOR i IN 1..la LOOP
    current := array[i];
    best := i;
    FOR j IN 1..lb LOOP
      cost := CASE WHEN substr(a, i, 1) = substr(b, j, 1) THEN 0 ELSE 1 END;
      current[j + 1] := least(previous[j + 1] + 1, current[j] + 1, previous[j] + cost);
      IF i > 1 AND j > 1 AND substr(a, i, 1) = substr(b, j - 1, 1) AND substr(a, i - 1, 1) = substr(b, j, 1) THEN
        current[j + 1] := least(current[j + 1], previous2[j - 1] + 1);
      END IF;
      best := least(best, current[j + 1]);
    END LOOP;
    IF best > max_distance THEN
      RETURN max_distance + 1;
    END IF;
    previous2 := previous;
    previous := current;
  END LOOP;
  RETURN previous[lb + 1];
END;
$$;

-- The reference's contentTypeCategory of a MIME type.
CREATE FUNCTION quarry_content_type_category(content_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN content_type LIKE 'audio/%' THEN 'AUDIO'
    WHEN content_type LIKE 'video/%' THEN 'VIDEO'
    WHEN content_type LIKE 'image/%' THEN 'IMAGE'
    WHEN content_type LIKE 'message/%' OR content_type IN ('application/vnd.ms-outlook', 'application/mbox', 'application/vnd.ms-outlook-pst') THEN 'EMAIL'
    WHEN content_type LIKE '%presentation%' OR content_type LIKE '%powerpoint%' THEN 'PRESENTATION'
    WHEN content_type LIKE '%spreadsheet%' OR content_type LIKE '%excel%' OR content_type = 'text/csv' THEN 'SPREADSHEET'
    WHEN content_type LIKE 'text/%' OR content_type = 'application/pdf' OR content_type LIKE '%word%'
      OR content_type LIKE '%opendocument.text%' OR content_type = 'application/rtf' THEN 'DOCUMENT'
    ELSE 'OTHER'
  END
$$;

-- Every record of an index as the search engine sees it: Documents, NamedEntities and Duplicates with the fields
-- of the reference's mapping (NULL where a record type has none). Conditions on `type` prune the other tables.
CREATE VIEW search_records AS
SELECT d.project, d.id, 'Document'::text AS type, d.root_id AS routing, d.parent_id IS NOT NULL AS routed,
  NULL::text AS join_parent, d.path, d.dirname, d.dirname_tree, d.content, d.content_tsv, d.content_type,
  quarry_content_type_category(d.content_type) AS content_type_category, d.content_length, d.content_text_length,
  d.content_encoding, d.language, d.metadata, d.extraction_date, d.extraction_level, d.tags, d.ner_tags, d.status,
  d.parent_id AS parent_document, d.root_id AS root_document,
  coalesce(nullif(d.metadata->>'tika_metadata_dc_title', ''), nullif(d.metadata->>'tika_metadata_subject', ''),
    nullif(d.metadata->>'tika_metadata_resourcename', ''), regexp_replace(d.path, '^.*[/\\]', '')) AS title,
  NULL::text AS mention, NULL::text AS mention_norm, NULL::integer AS mention_norm_text_length, NULL::text AS category,
  NULL::bigint[] AS offsets, NULL::text AS extractor, NULL::text AS extractor_language, NULL::boolean AS is_hidden,
  NULL::text AS parts_of_speech, NULL::text AS document_id
FROM documents d
UNION ALL
SELECT n.project, n.id, 'NamedEntity', n.root_id, true, n.document_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  n.mention, n.mention_norm, n.mention_norm_text_length, n.category, n.offsets, n.extractor, n.extractor_language,
  n.is_hidden, n.parts_of_speech, NULL
FROM named_entities n
UNION ALL
SELECT p.project, p.id, 'Duplicate', p.document_id, true, p.document_id, p.path, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, p.document_id
FROM duplicates p;
