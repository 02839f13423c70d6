-- Batch searches (legacy-api-reference §10): a list of queries run against projects, with the matching documents
-- of every query. Children go with their batch search.
CREATE TABLE batch_searches (
  uuid char(36) PRIMARY KEY,
  name varchar(255) NOT NULL,
  description varchar(4096) NOT NULL DEFAULT '',
  user_id varchar(96) NOT NULL,
  batch_date timestamptz NOT NULL DEFAULT now(),
  -- QUEUED, RUNNING, SUCCESS, FAILURE.
  state varchar(8) NOT NULL DEFAULT 'QUEUED',
  published boolean NOT NULL DEFAULT false,
  phrase_matches boolean NOT NULL DEFAULT false,
  fuzziness integer NOT NULL DEFAULT 0,
  file_types text[] NOT NULL DEFAULT '{}',
  paths text[] NOT NULL DEFAULT '{}',
  tags text[] NOT NULL DEFAULT '{}',
  nb_queries integer NOT NULL DEFAULT 0,
  batch_results integer NOT NULL DEFAULT 0,
  error_message text,
  error_query text
);
CREATE INDEX batch_searches_user ON batch_searches (user_id, batch_date);
CREATE INDEX batch_searches_published ON batch_searches (published) WHERE published;

CREATE TABLE batch_search_projects (
  search_uuid char(36) NOT NULL REFERENCES batch_searches (uuid) ON DELETE CASCADE,
  project_id varchar(255) NOT NULL,
  PRIMARY KEY (search_uuid, project_id)
);

CREATE TABLE batch_search_queries (
  search_uuid char(36) NOT NULL REFERENCES batch_searches (uuid) ON DELETE CASCADE,
  -- 0-based position in the uploaded CSV: queries run in this order.
  query_number integer NOT NULL,
  query text NOT NULL,
  query_results integer NOT NULL DEFAULT 0,
  PRIMARY KEY (search_uuid, query_number),
  UNIQUE (search_uuid, query)
);

CREATE TABLE batch_search_results (
  search_uuid char(36) NOT NULL REFERENCES batch_searches (uuid) ON DELETE CASCADE,
  query_number integer NOT NULL,
  query text NOT NULL,
  -- Rank of the document among the query's results (relevance order), from 0.
  doc_nb integer NOT NULL,
  doc_id varchar(96) NOT NULL,
  root_id varchar(96) NOT NULL,
  doc_path text NOT NULL,
  creation_date timestamptz,
  content_type varchar(255),
  content_length bigint,
  prj_id varchar(255),
  PRIMARY KEY (search_uuid, query_number, doc_nb)
);
CREATE INDEX batch_search_results_query ON batch_search_results (search_uuid, query, doc_nb);
