-- A claim costs the same whatever the backlog. Items never leased (or released) by job and
-- domain: a job's first claimable domain is a seek per domain skipped, not a walk over leased and
-- skipped items. Each job counts its leased items (kept by the trigger after every statement that
-- leases, frees or answers items), so that counting a job's items in flight reads only its expired
-- leases. The trigger locks the jobs rows it changes in id order, as saveResults does, so that two
-- statements touching the same jobs cannot deadlock.

CREATE INDEX job_items_free ON job_items (job_id, domain, position) WHERE result IS NULL AND lease_token IS NULL;
ALTER TABLE jobs ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET leased = (SELECT count(*) FROM job_items WHERE job_id = jobs.id AND result IS NULL AND lease_token IS NOT NULL)
WHERE completed_at IS NULL;
CREATE FUNCTION count_leased_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM jobs WHERE id IN (
    SELECT job_id FROM new_items n JOIN old_items o USING (job_id, position)
    GROUP BY job_id HAVING sum((n.result IS NULL AND n.lease_token IS NOT NULL)::int - (o.result IS NULL AND o.lease_token IS NOT NULL)::int) <> 0
  ) ORDER BY id FOR UPDATE;
  UPDATE jobs SET leased = jobs.leased + changed.by
  FROM (
    SELECT job_id, sum((n.result IS NULL AND n.lease_token IS NOT NULL)::int - (o.result IS NULL AND o.lease_token IS NOT NULL)::int) AS by
    FROM new_items n JOIN old_items o USING (job_id, position) GROUP BY job_id
  ) changed
  WHERE jobs.id = changed.job_id AND changed.by <> 0;
  RETURN NULL;
END $$;
CREATE TRIGGER job_items_leased AFTER UPDATE ON job_items REFERENCING OLD TABLE AS old_items NEW TABLE AS new_items
  FOR EACH STATEMENT EXECUTE FUNCTION count_leased_items();
