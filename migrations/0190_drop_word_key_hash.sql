-- Searches compute a key's bit positions themselves (TextQueries.ts, keyBitSlices): planning a call of this SQL function
-- inlined it again each time, 40 times in a one-word search. The filter's builder reads the same MD5 bytes.
DROP FUNCTION quarry_word_key_hash(text, integer, integer);
