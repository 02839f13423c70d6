-- Documents whose words are not in `index_words` yet. On the embedded database an index task's inserts leave their
-- words to later statements of their own, a few documents each (finishWrites, PostgresIndexUpkeep.ts): looking each
-- distinct word up in the lexicon took about half of an insert's time there, up to 300-500 ms for some 128 KB of
-- real pages, and PGlite's one session made every search wait for it. Until then fuzzy, wildcard, regexp and range
-- terms do not expand to those words; the index task adds them before it ends, and a task resumed after a crash adds
-- what the crash left. Deleting an index deletes its rows; a row whose document is gone is dropped unused.
CREATE TABLE index_words_pending (
  project varchar(255) NOT NULL,
  id varchar(96) NOT NULL,
  PRIMARY KEY (project, id)
);

CREATE FUNCTION quarry_defer_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO index_words_pending (project, id) SELECT d.project, d.id FROM changed d ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

-- A transaction that sets `quarry.index_words_deferred` to on gets the second trigger instead of the first.
DROP TRIGGER documents_words_inserted ON documents;
CREATE TRIGGER documents_words_inserted AFTER INSERT ON documents REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT WHEN (current_setting('quarry.index_words_deferred', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION quarry_add_index_words();
CREATE TRIGGER documents_words_deferred AFTER INSERT ON documents REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT WHEN (current_setting('quarry.index_words_deferred', true) = 'on')
  EXECUTE FUNCTION quarry_defer_index_words();
