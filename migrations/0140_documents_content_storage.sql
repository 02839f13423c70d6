-- How documents' content is stored. A page of hits reads each hit's content for highlighting, up to a million
-- characters of a long document, and an index task compresses every text it writes. pglz, PostgreSQL's default,
-- is slow at both: LZ4 where the server has it (a page of long real documents read in 46-51 ms instead of 68-93,
-- the corpus compressed in 0.38 s instead of 1.6). PGlite is built without LZ4, and pglz runs there in WebAssembly,
-- so its content is kept uncompressed, out of line (the same page 35-43 ms instead of 46-56, content 63 MB instead
-- of 34 of a 698 MB database). Texts already stored keep their form until they are written again.
DO $$
BEGIN
  ALTER TABLE documents ALTER COLUMN content SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  ALTER TABLE documents ALTER COLUMN content SET STORAGE EXTERNAL;
END;
$$;
