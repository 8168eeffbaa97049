-- A job's items in flight are counted from its live leases (a range of job_items_in_flight, as
-- many entries as items in flight: a few hundred a worker) instead of kept in jobs.leased. Keeping
-- that count made every claim and every result write of a job lock the job's row until it
-- committed, so that the workers of one job took their turns at it: with three workers, a claim
-- or a write waited 20 ms on average for the row, and more workers went no faster.
DROP TRIGGER job_items_leased ON job_items;
DROP FUNCTION count_leased_items();
ALTER TABLE jobs DROP COLUMN leased;
