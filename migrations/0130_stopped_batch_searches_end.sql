-- A batch search whose task is stopped ends in FAILURE whether or not the task had started. Its handler marked it on
-- the way out, but a task stopped while still queued never runs its handler, and the batch search stayed QUEUED for
-- good. The ending is one function, which the trigger below and a handler on its way out (BatchSearchRepo) both call.
CREATE FUNCTION quarry_end_stopped_batch_search(stopped bpchar) RETURNS void
LANGUAGE sql AS $$
  UPDATE batch_searches SET state = 'FAILURE', error_message = 'the batch search was stopped'
  WHERE uuid = stopped AND state IN ('QUEUED', 'RUNNING')
$$;

CREATE FUNCTION quarry_batch_search_task_stopped() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM quarry_end_stopped_batch_search(NEW.id::bpchar);
  RETURN NULL;
END;
$$;

-- Row-level and only on cancellation, so that the frequent progress and lease updates of tasks pay nothing.
CREATE TRIGGER tasks_batch_search_stopped AFTER UPDATE OF state ON tasks
  FOR EACH ROW WHEN (NEW.kind = 'batchSearch' AND NEW.state = 'CANCELLED' AND OLD.state <> 'CANCELLED')
  EXECUTE FUNCTION quarry_batch_search_task_stopped();
