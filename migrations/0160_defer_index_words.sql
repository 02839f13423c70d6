-- Documents whose words are not in `index_words` yet. On the embedded database an index task's inserts leave their
-- words to later statements of their own, a few documents each (PostgresDocumentIndex.addPendingWords): looking each
-- distinct word up in the lexicon took about half of an insert's time there, up to 300-500 ms for some 128 KB of
-- real pages, and PGlite's one session made every search wait for it. Until then fuzzy, wildcard, regexp and range
-- terms do not expand to those words; the index task adds them before it ends, and a task resumed after a crash adds
-- what the crash left. Deleting an index deletes its rows; a row whose document is gone is dropped unused.
CREATE TABLE index_words_pending (
  project varchar(255) NOT NULL,
  id varchar(96) NOT NULL,
  PRIMARY KEY (project, id)
);

-- As in 0141, unless the writing transaction set `quarry.index_words_deferred`: an insert then only lists its
-- documents.
CREATE OR REPLACE FUNCTION quarry_add_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND current_setting('quarry.index_words_deferred', true) = 'on' THEN
    INSERT INTO index_words_pending (project, id) SELECT d.project, d.id FROM changed d ON CONFLICT DO NOTHING;
    RETURN NULL;
  END IF;
  INSERT INTO index_words (project, field, word)
  SELECT w.project, w.field, w.word
  FROM (
    SELECT DISTINCT d.project, 'c'::"char" AS field, l.word
    FROM changed d, unnest(tsvector_to_array(d.content_tsv)) AS l (word) WHERE TG_OP = 'INSERT'
    UNION
    SELECT DISTINCT d.project, 'm'::"char", l.word FROM changed d, unnest(tsvector_to_array(d.metadata_tsv)) AS l (word)
  ) w
  LEFT JOIN LATERAL (
    SELECT true AS known FROM index_words k
    WHERE k.project = w.project AND k.field = w.field AND k.word = w.word COLLATE "C" LIMIT 1
  ) k ON true
  WHERE k.known IS NULL;
  RETURN NULL;
END;
$$;
