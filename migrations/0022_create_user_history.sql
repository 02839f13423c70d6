-- A user's visited documents and searches; one event per (user, uri), refreshed when visited again.
CREATE TABLE user_history (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id varchar(96) NOT NULL,
  type varchar(16) NOT NULL CHECK (type IN ('DOCUMENT', 'SEARCH')),
  name text,
  uri text NOT NULL,
  creation_date timestamptz NOT NULL DEFAULT now(),
  modification_date timestamptz NOT NULL DEFAULT now()
);
-- One event per (user, uri); keyed on a hash because a b-tree entry cannot hold a long search uri.
CREATE UNIQUE INDEX user_history_user_uri ON user_history (user_id, md5(uri));
CREATE INDEX user_history_user_type ON user_history (user_id, type);

CREATE TABLE user_history_projects (
  history_id integer NOT NULL REFERENCES user_history (id) ON DELETE CASCADE,
  project varchar(255) NOT NULL,
  PRIMARY KEY (history_id, project)
);
CREATE INDEX user_history_projects_project ON user_history_projects (project);
