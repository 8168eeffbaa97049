-- A webhook claim reads each endpoint's oldest due delivery and its first few, never a whole
-- account's backlog (store/flows/webhooks.ts claimDeliveries): an endpoint's deliveries not done by due time.

CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE done_at IS NULL;
