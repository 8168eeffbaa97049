-- Settling later (docs/architecture.md "Settling later"): an address whose answer was temporary
-- (greylisting, throttling, a timeout) keeps that answer as its result, not counted as processed,
-- until due_at (epoch ms), when it becomes claimable again; attempts counts its temporary answers
-- and first_answered_at (epoch ms) dates the first, from which the retry schedule counts. A
-- waiting address is its row alone: no lease, no session, nothing in any runner's memory.

ALTER TABLE job_items ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_items ADD COLUMN first_answered_at BIGINT;
ALTER TABLE job_items ADD COLUMN due_at BIGINT;
-- The due addresses of every job, for the runners that wake them.
CREATE INDEX job_items_due ON job_items (due_at) WHERE due_at IS NOT NULL;
-- A job's waiting addresses, counted for its progress, the earliest first.
CREATE INDEX job_items_waiting ON job_items (job_id, due_at) WHERE due_at IS NOT NULL;

-- settleWithin: past this time (epoch ms) no address of the job is asked again; its waiting ones settle.
ALTER TABLE jobs ADD COLUMN settle_by BIGINT;
