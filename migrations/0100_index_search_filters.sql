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

-- Wildcards on the path and on mentions (query_string's default fields include both): prefixes through a btree in
-- byte order (which also serves equality), other patterns through trigrams.
DROP INDEX documents_path;
CREATE INDEX documents_path ON documents (project, path text_pattern_ops);
CREATE INDEX documents_path_trigrams ON documents USING gin (path gin_trgm_ops);
DROP INDEX named_entities_mention_norm;
CREATE INDEX named_entities_mention_norm ON named_entities (project, mention_norm text_pattern_ops);
CREATE INDEX named_entities_mention_norm_trigrams ON named_entities USING gin (mention_norm gin_trgm_ops);
-- Fuzzy terms on them: values within N edits of a term are within N characters of its length.
CREATE INDEX documents_path_length ON documents (project, length(path));
CREATE INDEX named_entities_mention_norm_length ON named_entities (project, length(mention_norm));
