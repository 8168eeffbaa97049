-- Lease-claimed work (docs/architecture.md "The service inside"). An item's domain is stored so that a chunk of one domain
-- is one range of the pending index; leased items have their own small index, for renewing and
-- releasing by lease and for counting a job's items in flight. Items already pending get the
-- text after their first '@' (the application uses the last; they differ only for odd addresses).

ALTER TABLE job_items ADD COLUMN domain TEXT NOT NULL DEFAULT '';
ALTER TABLE job_items ADD COLUMN lease_token TEXT;
ALTER TABLE job_items ADD COLUMN lease_expires_at INTEGER;
UPDATE job_items SET domain = lower(trim(substr(email, instr(email, '@') + 1))) WHERE result IS NULL;
DROP INDEX job_items_pending;
CREATE INDEX job_items_pending ON job_items (job_id, domain, position) WHERE result IS NULL;
CREATE INDEX job_items_by_lease ON job_items (lease_token) WHERE result IS NULL AND lease_token IS NOT NULL;
CREATE INDEX job_items_in_flight ON job_items (job_id, lease_expires_at) WHERE result IS NULL AND lease_token IS NOT NULL;
