-- Indexes for the filters the search engine compiles, so that a selective filter reads its matches only instead of
-- every row of the project.

-- `tags` is searched case-insensitively (the reference's lowercase normalizer): terms on it compile to an overlap
-- with the lowercased labels, which this index serves.
CREATE FUNCTION quarry_lower_array(items text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(array_agg(lower(item)), '{}') FROM unnest(items) AS item $$;
CREATE INDEX documents_tags_lower ON documents USING gin (quarry_lower_array(tags));
-- Terms on tags went through unnest() and never used the plain array index.
DROP INDEX documents_tags;

-- Date ranges and histograms on the extraction date.
CREATE INDEX documents_extraction_date ON documents (project, extraction_date);
