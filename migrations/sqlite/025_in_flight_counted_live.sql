-- A job's items in flight are counted from its live leases (a range of job_items_in_flight) as on
-- PostgreSQL, where keeping the count in jobs.leased made the workers of one job take turns at its
-- row. Here the count costs a range of the index per unfinished job and claim.
DROP TRIGGER job_items_leased;
ALTER TABLE jobs DROP COLUMN leased;
