-- The word-count filter (0180) at its largest (over 900 keys, a long document's) no longer has one length for every
-- such document, but from 1,673 to 1,800 bytes by its number of keys. A key's bits are its hash modulo the filter's
-- length, so with one length they fell on the same places in every long document, where the keys of the words they
-- all repeat had set them: of the 388 long documents (of 100,000 generated ones) holding the word "prend" once, 307
-- passed its test for a word held twice (2.6 % of the shorter documents did), and each was then ranked on its whole
-- tsvector (75 KB on average); with spread lengths, 103 of 441. Simulated over such documents, the share of long
-- documents a word passes by chance stays 3 % on average, but is at most 19 % instead of all of them.
-- The search (TextQueries.ts) tests each filter modulo its own length, so filters stored before stay valid as they are:
-- they are built again when their document is written again, not here (rebuilding them took 98 s for 100,000 documents).
CREATE OR REPLACE FUNCTION quarry_content_word_counts(words tsvector) RETURNS bit varying
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  hashes bytea[];
  bits integer[];
  keys integer;
  size integer;
  filter bytea;
  bit_index integer;
BEGIN
  SELECT array_agg(decode(md5(t.tier::text || l.lexeme), 'hex')), array_agg(CASE WHEN t.tier >= 3 THEN 8 ELSE 4 END)
    INTO hashes, bits
    FROM unnest(words) AS l JOIN (VALUES (1, 2), (2, 4), (3, 8), (4, 16), (5, 32), (6, 64)) AS t(tier, least)
      ON cardinality(l.positions) >= t.least;
  keys := coalesce(cardinality(hashes), 0);
  size := least(2 * keys + 1, 1800 - keys % 128);
  filter := decode(repeat('00', size), 'hex');
  FOR key IN 1 .. keys LOOP
    FOR which IN 0 .. bits[key] - 1 LOOP
      bit_index := (get_byte(hashes[key], 2 * which) * 256 + get_byte(hashes[key], 2 * which + 1)) % (8 * size);
      filter := set_byte(filter, bit_index / 8, get_byte(filter, bit_index / 8) | (128 >> (bit_index % 8)));
    END LOOP;
  END LOOP;
  RETURN ('x' || encode(filter, 'hex'))::bit varying;
END
$$;
