-- Claims and result writes that cost the same on a job of 20,000 items as on one of ten.

-- An item with a result holds no lease: only items without a result are leased, and a result is
-- written in the statement that clears its lease. Result writes match an item by its lease alone
-- and rely on this (src/server/store/postgres/work.ts, writeResults).
ALTER TABLE job_items ADD CONSTRAINT job_items_result_unleased CHECK (result IS NULL OR lease_token IS NULL);

-- The leased count's change per job is what the statement's new rows hold leased less what its
-- old rows did. Summed over each side on its own: the planner cannot know how many rows a
-- transition table holds, and joining the two (as step 9 did) compared every old row with every
-- new one (62,500 comparisons for a claim of 250 items).
CREATE OR REPLACE FUNCTION count_leased_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM jobs WHERE id IN (
    SELECT job_id FROM (
      SELECT job_id, (result IS NULL AND lease_token IS NOT NULL)::int AS by FROM new_items
      UNION ALL
      SELECT job_id, -(result IS NULL AND lease_token IS NOT NULL)::int FROM old_items
    ) each_item GROUP BY job_id HAVING sum(by) <> 0
  ) ORDER BY id FOR UPDATE;
  UPDATE jobs SET leased = jobs.leased + changed.by
  FROM (
    SELECT job_id, sum(by) AS by FROM (
      SELECT job_id, (result IS NULL AND lease_token IS NOT NULL)::int AS by FROM new_items
      UNION ALL
      SELECT job_id, -(result IS NULL AND lease_token IS NOT NULL)::int FROM old_items
    ) each_item GROUP BY job_id
  ) changed
  WHERE jobs.id = changed.job_id AND changed.by <> 0;
  RETURN NULL;
END $$;
