-- Notes shown on every document at or below a path of a project (legacy-api-reference §3.8).
CREATE TABLE notes (
  project varchar(255) NOT NULL,
  path varchar(4096) NOT NULL,
  note text NOT NULL,
  variant varchar(16) NOT NULL DEFAULT 'info'
);
-- One note per path; keyed on a hash because a b-tree entry cannot hold a path of 4096 multi-byte characters.
CREATE UNIQUE INDEX notes_project_path ON notes (project, md5(path));
