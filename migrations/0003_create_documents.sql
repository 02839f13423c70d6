-- The PostgreSQL document index: one row per extracted document, Duplicates apart, keyed by project (index name).
CREATE TABLE document_indices (
  project varchar(255) PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  project varchar(255) NOT NULL,
  id varchar(96) NOT NULL,
  -- The routing of an embedded document; the id itself for a top-level file.
  root_id varchar(96) NOT NULL,
  parent_id varchar(96),
  path text NOT NULL,
  dirname text NOT NULL,
  -- `/a/b/c` → {/a, /a/b, /a/b/c}: the path-hierarchy tokens of `dirname.tree`.
  dirname_tree text[] NOT NULL,
  content text NOT NULL,
  content_type varchar(255) NOT NULL,
  content_length bigint NOT NULL,
  content_text_length bigint NOT NULL,
  content_encoding varchar(64) NOT NULL,
  language varchar(64) NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  extraction_date timestamptz NOT NULL,
  extraction_level integer NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  ner_tags text[] NOT NULL DEFAULT '{}',
  status varchar(32) NOT NULL DEFAULT 'INDEXED',
  extraction_error text,
  -- Folded words of a prefix of the content only: a tsvector is capped at 1 MB; `content` keeps the whole text.
  content_tsv tsvector NOT NULL,
  PRIMARY KEY (project, id)
);
CREATE INDEX documents_content_tsv ON documents USING gin (content_tsv);
CREATE INDEX documents_root ON documents (project, root_id);
CREATE INDEX documents_path ON documents (project, path);
CREATE INDEX documents_dirname_tree ON documents USING gin (dirname_tree);
CREATE INDEX documents_content_type ON documents (project, content_type);
CREATE INDEX documents_language ON documents (project, language);
CREATE INDEX documents_extraction_level ON documents (project, extraction_level);
CREATE INDEX documents_tags ON documents USING gin (tags);
CREATE INDEX documents_ner_tags ON documents USING gin (ner_tags);

-- A file whose bytes were already indexed at another path; id = SHA-384 of the bytes alone. Every copy's path is
-- kept (the key includes it), where Elasticsearch would keep only the last one under that id.
CREATE TABLE duplicates (
  project varchar(255) NOT NULL,
  id varchar(96) NOT NULL,
  path text NOT NULL,
  document_id varchar(96) NOT NULL,
  PRIMARY KEY (project, id, path)
);
CREATE INDEX duplicates_document ON duplicates (project, document_id);
