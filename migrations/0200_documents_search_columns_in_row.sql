-- The columns a search reads for every match stay in the row (MAIN: compressed in place if need be, out of line only
-- when the row would not fit a page). A row longer than 2 KB has its largest columns moved out of line, and a long
-- document's word-count filter, which must stay in the row, takes up to 1.8 KB: the rows of the documents a common
-- word matches then had their default-field tsvector and paths read from TOAST for each match. A word in 29,927 of
-- 100,000 generated documents read 8,900 TOAST blocks besides its 12,900 heap blocks to test and score the metadata
-- words of its matches: 184 ms, 137 with these columns in the row (113 and 89 once cached). The content and its
-- tsvector, read for a page or an exact rank only, still go out of line first. Rows already stored keep their form
-- until they are written again.
ALTER TABLE documents
  ALTER COLUMN metadata_tsv SET STORAGE MAIN,
  ALTER COLUMN path SET STORAGE MAIN,
  ALTER COLUMN dirname_tree SET STORAGE MAIN,
  ALTER COLUMN tags SET STORAGE MAIN,
  ALTER COLUMN ner_tags SET STORAGE MAIN;
