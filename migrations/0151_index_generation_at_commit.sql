-- An index write renews its index's generation once, as its last statement, instead of from the trigger of its
-- first statement: that update's row lock is held until commit, so two index workers of one project wrote one after
-- the other, and a tag written meanwhile waited for the whole index transaction in progress. While a transaction has
-- set `quarry.generation_renewed_by_caller` to on, the statement triggers leave the renewal to it.
CREATE OR REPLACE FUNCTION quarry_renew_index_generation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('quarry.generation_renewed_by_caller', true) = 'on' THEN
    RETURN NULL;
  END IF;
  UPDATE document_indices SET generation = nextval('document_index_generations')
  WHERE project IN (SELECT DISTINCT project FROM changed);
  RETURN NULL;
END;
$$;
