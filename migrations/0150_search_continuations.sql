-- Continuations the search proxy gave out in SERVER mode (a scroll's `_scroll_id`, an async search's `id`), by the
-- SHA-256 of the id, with the indices of the search that opened them: a continuation is answered only for a caller
-- granted every one of them. Rows are dropped once past the longest keep-alive Elasticsearch allows.
CREATE TABLE search_continuations (
  id_digest text PRIMARY KEY,
  indices text[] NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX search_continuations_expiry ON search_continuations (expires_at);
