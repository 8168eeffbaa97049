-- Webhooks (docs/architecture.md "Webhooks"): an account's endpoints (the signing secret kept:
-- every delivery is signed with it), the leased deliveries of events to them, and the newest attempts.

CREATE TABLE webhook_endpoints (
  id          TEXT PRIMARY KEY,
  user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url         TEXT NOT NULL,
  description TEXT,
  secret      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  disabled_at TEXT,
  removed_at  TEXT
);
CREATE INDEX webhook_endpoints_by_user ON webhook_endpoints (user_id);

-- One event for one endpoint, kept under leases as job items are: a lease token, its holder and
-- an epoch-milliseconds expiry; due when next_attempt_at (epoch ms, the lease clock) has come.
CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,
  event_id         TEXT NOT NULL,
  event_type       TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  payload          TEXT NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  BIGINT NOT NULL,
  lease_token      TEXT,
  lease_holder     TEXT,
  lease_expires_at BIGINT,
  done_at          TEXT,
  outcome          TEXT CHECK (outcome IN ('delivered', 'failed', 'disabled', 'removed')),
  created_at       TEXT NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE done_at IS NULL;
CREATE INDEX webhook_deliveries_by_lease ON webhook_deliveries (lease_token) WHERE done_at IS NULL AND lease_token IS NOT NULL;
CREATE INDEX webhook_deliveries_by_holder ON webhook_deliveries (lease_holder) WHERE done_at IS NULL AND lease_token IS NOT NULL;

CREATE TABLE webhook_attempts (
  id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id  TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id     TEXT NOT NULL,
  attempted_at TEXT NOT NULL,
  status       INTEGER,
  latency_ms   INTEGER NOT NULL,
  error        TEXT
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, id);
