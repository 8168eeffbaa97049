-- The SQLite schema's steps as mailverify released them before its migrations were numbered
-- files shared by both dialects: step N brought the recorded version from N - 1 to N. Kept as
-- they were, to make databases of every old version in tests.
-- step 1
  CREATE TABLE users (
    id                  INTEGER PRIMARY KEY,
    email               TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash       TEXT,
    -- The CHECK is a last line of defence; charges are conditional updates that never reach it.
    balance             INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
    rate_limit          INTEGER NOT NULL CHECK (rate_limit > 0),
    rate_window_seconds INTEGER NOT NULL CHECK (rate_window_seconds > 0),
    created_at          TEXT NOT NULL
  );

  CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at   TEXT
  );
  CREATE INDEX api_tokens_by_user ON api_tokens (user_id);

  CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    delta         INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    reason        TEXT NOT NULL CHECK (reason IN ('grant', 'verify', 'bulk', 'refund')),
    job_id        TEXT,
    created_at    TEXT NOT NULL
  );
  CREATE INDEX ledger_by_user ON ledger (user_id, id);

  CREATE TABLE jobs (
    id           TEXT PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    total        INTEGER NOT NULL,
    -- Kept in the same transaction as the results it counts (see saveResults).
    processed    INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX jobs_unfinished ON jobs (created_at) WHERE completed_at IS NULL;

  CREATE TABLE job_items (
    job_id   TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    email    TEXT NOT NULL,
    result   TEXT,
    PRIMARY KEY (job_id, position)
  ) WITHOUT ROWID;
  CREATE INDEX job_items_pending ON job_items (job_id, position) WHERE result IS NULL;

  CREATE TABLE idempotency (
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    route        TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status_code  INTEGER NOT NULL,
    body         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (user_id, route, key)
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  CREATE TABLE rate_windows (
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    window_start INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (user_id, window_start)
  ) WITHOUT ROWID;
-- step 2
  CREATE TABLE login_windows (
    window_start INTEGER NOT NULL,
    key          TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (window_start, key)
  ) WITHOUT ROWID;
-- step 3
  ALTER TABLE job_items ADD COLUMN domain TEXT NOT NULL DEFAULT '';
  ALTER TABLE job_items ADD COLUMN lease_token TEXT;
  ALTER TABLE job_items ADD COLUMN lease_expires_at INTEGER;
  UPDATE job_items SET domain = lower(trim(substr(email, instr(email, '@') + 1))) WHERE result IS NULL;
  DROP INDEX job_items_pending;
  CREATE INDEX job_items_pending ON job_items (job_id, domain, position) WHERE result IS NULL;
  CREATE INDEX job_items_by_lease ON job_items (lease_token) WHERE result IS NULL AND lease_token IS NOT NULL;
  CREATE INDEX job_items_in_flight ON job_items (job_id, lease_expires_at) WHERE result IS NULL AND lease_token IS NOT NULL;
-- step 4
  CREATE TABLE sessions (
    id_hash     TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_secret TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);

  CREATE TABLE list_uploads (
    id          TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    file_name   TEXT NOT NULL,
    content     BLOB NOT NULL,
    column_spec TEXT,
    job_id      TEXT UNIQUE REFERENCES jobs (id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL
  );
  CREATE INDEX list_uploads_by_user ON list_uploads (user_id);
  -- The dashboard lists a user's newest jobs.
  CREATE INDEX jobs_by_user ON jobs (user_id, created_at);
-- step 5
  ALTER TABLE job_items ADD COLUMN lease_holder TEXT;
  CREATE INDEX job_items_by_holder ON job_items (lease_holder) WHERE result IS NULL AND lease_token IS NOT NULL;
-- step 6
  ALTER TABLE jobs ADD COLUMN name TEXT;
-- step 7
  ALTER TABLE jobs ADD COLUMN fresh INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE result_cache (
    address_key TEXT NOT NULL,
    user_id     INTEGER NOT NULL,
    result      TEXT NOT NULL,
    verified_at TEXT NOT NULL,
    fresh_until INTEGER NOT NULL,
    PRIMARY KEY (address_key, user_id)
  ) WITHOUT ROWID;
  CREATE INDEX result_cache_by_freshness ON result_cache (fresh_until);
-- step 8
  CREATE TABLE host_slots (
    egress     TEXT NOT NULL,
    host       TEXT NOT NULL,
    slot       INTEGER NOT NULL,
    id         TEXT NOT NULL UNIQUE,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (egress, host, slot)
  ) WITHOUT ROWID;
  CREATE INDEX host_slots_by_holder ON host_slots (holder);
  -- An interactive take waiting at a full host, until when: bulk takes there make way.
  CREATE TABLE host_slot_waits (
    egress      TEXT NOT NULL,
    host        TEXT NOT NULL,
    waits_until INTEGER NOT NULL,
    PRIMARY KEY (egress, host)
  ) WITHOUT ROWID;
-- step 9
  CREATE INDEX job_items_free ON job_items (job_id, domain, position) WHERE result IS NULL AND lease_token IS NULL;
  ALTER TABLE jobs ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
  UPDATE jobs SET leased = (SELECT count(*) FROM job_items WHERE job_id = jobs.id AND result IS NULL AND lease_token IS NOT NULL)
  WHERE completed_at IS NULL;
  CREATE TRIGGER job_items_leased AFTER UPDATE OF lease_token, result ON job_items
  WHEN (OLD.result IS NULL AND OLD.lease_token IS NOT NULL) <> (NEW.result IS NULL AND NEW.lease_token IS NOT NULL)
  BEGIN
    UPDATE jobs SET leased = leased + iif(NEW.result IS NULL AND NEW.lease_token IS NOT NULL, 1, -1) WHERE id = NEW.job_id;
  END;
-- step 10
  CREATE TABLE webhook_endpoints (
    id          TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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
    id           INTEGER PRIMARY KEY,
    endpoint_id  TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id     TEXT NOT NULL,
    attempted_at TEXT NOT NULL,
    status       INTEGER,
    latency_ms   INTEGER NOT NULL,
    error        TEXT
  );
  CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, id);
-- step 11
  ALTER TABLE ledger ADD COLUMN refund_of INTEGER;
  CREATE UNIQUE INDEX ledger_refund_of ON ledger (refund_of) WHERE refund_of IS NOT NULL;
  ALTER TABLE idempotency ADD COLUMN charge_id INTEGER;
-- step 12
  ALTER TABLE webhook_endpoints ADD COLUMN failing_since TEXT;
  ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason TEXT;
  UPDATE webhook_endpoints SET disabled_reason = 'The endpoint answered 410 Gone.' WHERE disabled_at IS NOT NULL;
  CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
  CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (done_at) WHERE done_at IS NOT NULL;
  CREATE INDEX webhook_attempts_by_age ON webhook_attempts (attempted_at);
  CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
-- step 13
  CREATE TABLE egress_benches (
    egress        TEXT NOT NULL,
    provider      TEXT NOT NULL,
    benched_until INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    PRIMARY KEY (egress, provider)
  );
  CREATE INDEX egress_benches_by_provider ON egress_benches (provider, benched_until);
-- step 14
  CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE done_at IS NULL;
-- step 15
  ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'verify bulk results account';
  ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;
-- step 16
  CREATE INDEX ledger_by_user_time ON ledger (user_id, created_at);
