-- Scroll contexts of the embedded search engine (`_search?scroll=` then `_search/scroll`): the search to page
-- through and where its next page starts. Kept in the database so that any Quarry process sharing it continues a
-- scroll, and dropped once past their keep-alive.
CREATE TABLE search_scrolls (
  id text PRIMARY KEY,
  indices text NOT NULL,
  body text NOT NULL,
  url_query text NOT NULL,
  page_size integer NOT NULL,
  next_from integer NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX search_scrolls_expiry ON search_scrolls (expires_at);
