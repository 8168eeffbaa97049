-- A lease names its holder (a process, see store/sqlite/holders.ts), so that the leases of a
-- process that no longer exists are taken over at once, not when they expire.

ALTER TABLE job_items ADD COLUMN lease_holder TEXT;
CREATE INDEX job_items_by_holder ON job_items (lease_holder) WHERE result IS NULL AND lease_token IS NOT NULL;
