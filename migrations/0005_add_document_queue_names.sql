-- Named document queues (the reference's `queueName` option): a scan fills one queue of a project and an index
-- task drains the same one. Rows queued before names existed belong to the reference's default queue.
ALTER TABLE document_queue ADD COLUMN queue_name text NOT NULL DEFAULT 'extract:queue';
ALTER TABLE document_queue DROP CONSTRAINT document_queue_project_path_key;
ALTER TABLE document_queue ADD CONSTRAINT document_queue_project_queue_path_key UNIQUE (project, queue_name, path);
DROP INDEX document_queue_drain;
CREATE INDEX document_queue_drain ON document_queue (project, queue_name, id);
