-- What users mark on documents of a project: stars, tags and recommendations ("read" marks). No foreign key to
-- documents: an index may live in Elasticsearch, and LOCAL mode's user has no users row.
CREATE TABLE document_stars (
  project varchar(255) NOT NULL,
  doc_id varchar(96) NOT NULL,
  user_id varchar(96) NOT NULL,
  PRIMARY KEY (project, doc_id, user_id)
);
CREATE INDEX document_stars_user ON document_stars (user_id, project);

-- One row per label on a document of a project, whoever added it first (the reference keys (doc_id, label) only;
-- the project is part of the key here so that projects sharing a document do not collide).
CREATE TABLE document_tags (
  project varchar(255) NOT NULL,
  doc_id varchar(96) NOT NULL,
  label varchar(64) NOT NULL,
  user_id varchar(96) NOT NULL,
  creation_date timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project, doc_id, label)
);
CREATE INDEX document_tags_label ON document_tags (project, label);

CREATE TABLE document_recommendations (
  project varchar(255) NOT NULL,
  doc_id varchar(96) NOT NULL,
  user_id varchar(96) NOT NULL,
  creation_date timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project, doc_id, user_id)
);
CREATE INDEX document_recommendations_user ON document_recommendations (project, user_id);
