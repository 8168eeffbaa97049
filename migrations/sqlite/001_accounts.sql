-- Accounts, credits, tokens, bulk jobs, idempotency and rate windows.

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
