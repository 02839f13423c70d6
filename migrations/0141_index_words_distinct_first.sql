-- The lexicon's trigger looked each word occurrence of a statement's documents up in `index_words` before removing
-- repeats: 547,700 lookups for 3,000 real pages holding 51,308 distinct words. It now removes repeats first and looks
-- up each distinct word once, and lists a tsvector's words with tsvector_to_array, which does not build the
-- positions and weights that unnest(tsvector) returns beside each word. The lookup is a LATERAL subquery with a
-- LIMIT, which the planner can only run as one index probe a word: as a NOT EXISTS, PGlite (whose tables are never
-- analysed while an index task runs) planned some statements as joins that read the whole lexicon for each word,
-- and writes of 512 KB took 6 to 27 s. Inserting those 3,000 pages on the server: 2.8-4.7 s with the trigger as it
-- was, 2.0 s with this one, 1.5 s with no trigger at all. On PGlite, which joined by hashing, an index of 12,886
-- real files spent the same time writing either way (73 s over 436 transactions).
CREATE OR REPLACE FUNCTION quarry_add_index_words() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
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
