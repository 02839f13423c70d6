-- Each index's generation: a fresh number, from one sequence, whenever a statement changes the index's records.
-- The change and the new number commit together, so a reader that sees a generation also sees every change it
-- stands for. The search engine keys its answer cache on the generations of the indices a request reads; a number
-- is never reused, even by an index deleted and created again.
CREATE SEQUENCE document_index_generations;
ALTER TABLE document_indices ADD COLUMN generation bigint NOT NULL DEFAULT nextval('document_index_generations');

-- Statement triggers: one update per index a statement touched, whatever the number of rows.
CREATE FUNCTION quarry_renew_index_generation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE document_indices SET generation = nextval('document_index_generations')
  WHERE project IN (SELECT DISTINCT project FROM changed);
  RETURN NULL;
END;
$$;

CREATE FUNCTION quarry_renew_every_index_generation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE document_indices SET generation = nextval('document_index_generations');
  RETURN NULL;
END;
$$;

-- The same four triggers on each table of records the search engine reads.
DO $$
DECLARE
  records text;
BEGIN
  FOREACH records IN ARRAY ARRAY['documents', 'named_entities', 'duplicates'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION quarry_renew_index_generation()', records || '_inserted', records);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION quarry_renew_index_generation()', records || '_updated', records);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION quarry_renew_index_generation()', records || '_deleted', records);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION quarry_renew_every_index_generation()', records || '_truncated', records);
  END LOOP;
END;
$$;
