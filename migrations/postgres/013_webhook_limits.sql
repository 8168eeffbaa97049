-- Webhooks bounded (docs/architecture.md "Webhooks"): why an endpoint was disabled and since
-- when it has been failing; an endpoint's deliveries by age (test events counted per account, a
-- removed endpoint's deliveries stopped); settled deliveries, attempts and finished jobs by age,
-- for pruning after their retention.

ALTER TABLE webhook_endpoints ADD COLUMN failing_since TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason TEXT;
UPDATE webhook_endpoints SET disabled_reason = 'The endpoint answered 410 Gone.' WHERE disabled_at IS NOT NULL;
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (done_at) WHERE done_at IS NOT NULL;
CREATE INDEX webhook_attempts_by_age ON webhook_attempts (attempted_at);
CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
