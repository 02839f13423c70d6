-- Files found by scan tasks and waiting for an index task: the durable form of the reference's `extract:queue`,
-- so that queued work survives a restart. A row is deleted in the transaction that indexes its file.
CREATE TABLE document_queue (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The index the file goes to.
  project text NOT NULL,
  -- Absolute path of the file as the server sees it.
  path text NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The index task (and its attempt) extracting the file now; a claim whose task is no longer running at that
  -- attempt (stopped, crashed, restarted) is stale and the file can be claimed again.
  claimed_by text,
  claim_attempt integer,
  -- A file is queued once per project while it waits; scanning it again changes nothing.
  UNIQUE (project, path)
);

-- Draining: the oldest files of a project first.
CREATE INDEX document_queue_drain ON document_queue (project, id);
