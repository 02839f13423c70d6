-- The lexicon's unique key made writers wait for each other: an insert of a word another transaction has just
-- inserted waits for that transaction to end, and an index task writing a batch in several statements could then
-- deadlock with another worker (key order holds within a statement, not across two). Words are now added when no
-- committed row has them: two transactions adding the same new word at once both keep it, which expansion reads
-- DISTINCT, and no writer ever waits.
ALTER TABLE index_words DROP CONSTRAINT index_words_pkey;
CREATE INDEX index_words_words ON index_words (project, field, word);

CREATE OR REPLACE FUNCTION quarry_add_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO index_words (project, field, word)
  SELECT DISTINCT w.project, w.field, w.word
  FROM (
    SELECT d.project, 'c'::"char" AS field, l.lexeme AS word FROM changed d, unnest(d.content_tsv) AS l WHERE TG_OP = 'INSERT'
    UNION ALL
    SELECT d.project, 'm'::"char", l.lexeme FROM changed d, unnest(d.metadata_tsv) AS l
  ) w
  WHERE NOT EXISTS (SELECT 1 FROM index_words k WHERE k.project = w.project AND k.field = w.field AND k.word = w.word COLLATE "C");
  RETURN NULL;
END;
$$;
