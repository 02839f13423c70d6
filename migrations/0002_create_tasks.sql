-- Durable tasks of the job engine: every long piece of work (scan, index, findNames, batch download) is a row.
CREATE TABLE tasks (
  -- URL-safe and unique (a uuid unless the kind supplies one, e.g. a batch download's uuid).
  id text PRIMARY KEY,
  -- `<runner type>@<id>`: the name the legacy API shows and addresses tasks by.
  name text NOT NULL UNIQUE,
  kind text NOT NULL,
  -- The owner's login; no foreign key, so that LOCAL mode's user needs no row.
  user_id varchar(96) NOT NULL,
  state text NOT NULL CHECK (state IN ('QUEUED', 'RUNNING', 'DONE', 'ERROR', 'CANCELLED')),
  -- A fraction; null (or NaN) while unknown.
  progress double precision,
  payload jsonb NOT NULL,
  result jsonb,
  error text,
  -- What a handler saved to resume from after a restart.
  checkpoint jsonb,
  -- Times the task was claimed; the reaper gives up on tasks whose runs keep dying.
  attempts integer NOT NULL DEFAULT 0,
  -- The engine running the task and until when its heartbeat holds the task.
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at timestamptz,
  finished_at timestamptz
);

-- Claiming: the oldest QUEUED tasks of a kind.
CREATE INDEX tasks_claim ON tasks (state, kind, created_at);
-- Listing and cleaning a user's tasks.
CREATE INDEX tasks_user ON tasks (user_id, created_at);
-- Reaping: running tasks whose lease expired.
CREATE INDEX tasks_lease ON tasks (lease_expires_at) WHERE state = 'RUNNING';
