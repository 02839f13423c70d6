-- Notes shown on every document at or below a path of a project (legacy-api-reference §3.8).
CREATE TABLE notes (
  project varchar(255) NOT NULL,
  path varchar(4096) NOT NULL,
  note text NOT NULL,
  variant varchar(16) NOT NULL DEFAULT 'info',
  PRIMARY KEY (project, path)
);
