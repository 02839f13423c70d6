-- The words of each index's content and default-field tsvectors: the term dictionary fuzzy, wildcard, regexp and
-- range queries on those fields expand their term against (at most 1024 words), before matching documents through
-- the tsvectors' GIN indexes. Without it each such query unnested every document's tsvector.
-- `field`: 'c' the words of content_tsv, 'm' the words of metadata_tsv (`_default_text`).
-- COLLATE "C": byte order, as ranges on text compare, and what lets the btree serve LIKE prefixes.
CREATE TABLE index_words (
  project varchar(255) NOT NULL,
  field "char" NOT NULL,
  word text COLLATE "C" NOT NULL,
  PRIMARY KEY (project, field, word)
);
-- Candidates of wildcards, regular expressions and fuzzy terms (LIKE, ~ and substrings of the term).
CREATE INDEX index_words_trigrams ON index_words USING gin (word gin_trgm_ops);

-- New words of the rows a statement wrote, in key order so that concurrent writers of shared words wait for each
-- other instead of deadlocking. Documents' content is written once (updates change tags, status and named-entity
-- tags), so an update only adds the default-field words, which include the tags; words of deleted documents stay,
-- as the tsquery still checks the documents themselves.
CREATE FUNCTION quarry_add_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO index_words (project, field, word)
  SELECT DISTINCT w.project, w.field, w.word
  FROM (
    SELECT d.project, 'c'::"char" AS field, l.lexeme AS word FROM changed d, unnest(d.content_tsv) AS l WHERE TG_OP = 'INSERT'
    UNION ALL
    SELECT d.project, 'm'::"char", l.lexeme FROM changed d, unnest(d.metadata_tsv) AS l
  ) w
  ORDER BY w.project, w.field, w.word
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

CREATE TRIGGER documents_words_inserted AFTER INSERT ON documents REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_add_index_words();
CREATE TRIGGER documents_words_updated AFTER UPDATE ON documents REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_add_index_words();

-- A deleted index takes its words along, so an index created again under the same name starts empty.
CREATE FUNCTION quarry_delete_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM index_words WHERE project = OLD.project;
  RETURN NULL;
END;
$$;

CREATE TRIGGER document_indices_words_deleted AFTER DELETE ON document_indices
  FOR EACH ROW EXECUTE FUNCTION quarry_delete_index_words();

INSERT INTO index_words (project, field, word)
SELECT DISTINCT d.project, 'c'::"char", l.lexeme FROM documents d, unnest(d.content_tsv) AS l
ON CONFLICT DO NOTHING;
INSERT INTO index_words (project, field, word)
SELECT DISTINCT d.project, 'm'::"char", l.lexeme FROM documents d, unnest(d.metadata_tsv) AS l
ON CONFLICT DO NOTHING;
