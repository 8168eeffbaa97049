-- A claim costs the same whatever the backlog (claims that grew with it stalled the
-- process, SQLite being synchronous). Items never leased (or released) by job and domain: a job's
-- first claimable domain is a seek per domain skipped, not a walk over leased and skipped items.
-- Each job counts its leased items (kept by the trigger on every lease and result written), so
-- that counting a job's items in flight reads only its expired leases, not all its live ones.

CREATE INDEX job_items_free ON job_items (job_id, domain, position) WHERE result IS NULL AND lease_token IS NULL;
ALTER TABLE jobs ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET leased = (SELECT count(*) FROM job_items WHERE job_id = jobs.id AND result IS NULL AND lease_token IS NOT NULL)
WHERE completed_at IS NULL;
CREATE TRIGGER job_items_leased AFTER UPDATE OF lease_token, result ON job_items
WHEN (OLD.result IS NULL AND OLD.lease_token IS NOT NULL) <> (NEW.result IS NULL AND NEW.lease_token IS NOT NULL)
BEGIN
  UPDATE jobs SET leased = leased + iif(NEW.result IS NULL AND NEW.lease_token IS NOT NULL, 1, -1) WHERE id = NEW.job_id;
END;
