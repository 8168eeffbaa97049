import type { Database } from 'better-sqlite3';

/**
 * The schema, as an ordered list of steps. Step i brings `PRAGMA user_version` from i to i + 1.
 * Steps are only ever appended: a released step is never edited, so every existing data file can
 * be brought forward from whatever version it holds.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: accounts, credits, tokens, bulk jobs, idempotency and rate windows.
  `
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
  `,
  // 2: login attempts per address and per client IP, so that several instances share one limit.
  // Keyed by window first: pruning every past window is one range of the primary key.
  `
  CREATE TABLE login_windows (
    window_start INTEGER NOT NULL,
    key          TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (window_start, key)
  ) WITHOUT ROWID;
  `,
  // 3: lease-claimed work (docs/architecture.md "The service inside"). An item's domain is stored so that a chunk of one domain
  // is one range of the pending index; leased items have their own small index, for renewing and
  // releasing by lease and for counting a job's items in flight. Items already pending get the
  // text after their first '@' (the application uses the last; they differ only for odd addresses).
  `
  ALTER TABLE job_items ADD COLUMN domain TEXT NOT NULL DEFAULT '';
  ALTER TABLE job_items ADD COLUMN lease_token TEXT;
  ALTER TABLE job_items ADD COLUMN lease_expires_at INTEGER;
  UPDATE job_items SET domain = lower(trim(substr(email, instr(email, '@') + 1))) WHERE result IS NULL;
  DROP INDEX job_items_pending;
  CREATE INDEX job_items_pending ON job_items (job_id, domain, position) WHERE result IS NULL;
  CREATE INDEX job_items_by_lease ON job_items (lease_token) WHERE result IS NULL AND lease_token IS NOT NULL;
  CREATE INDEX job_items_in_flight ON job_items (job_id, lease_expires_at) WHERE result IS NULL AND lease_token IS NOT NULL;
  `,
  // 4: the dashboard's sign-in sessions (by the SHA-256 of their id), the list files uploaded there, and its job list.
  `
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
  `,
  // 5: a lease names its holder (a process, see sqlite/holders.ts), so that the leases of a
  // process that no longer exists are taken over at once, not when they expire.
  `
  ALTER TABLE job_items ADD COLUMN lease_holder TEXT;
  CREATE INDEX job_items_by_holder ON job_items (lease_holder) WHERE result IS NULL AND lease_token IS NOT NULL;
  `,
  // 6: a job may carry a name (the list's file name, from the CLI; any text from the API).
  `
  ALTER TABLE jobs ADD COLUMN name TEXT;
  `,
  // 7: verdicts kept for reuse across jobs (see ResultCacheStore), and jobs that ask for none.
  `
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
  `,
  // 8: SMTP session slots at mail hosts, shared by every process on this file (see
  // sqlite/host-slots.ts): a slot names its holder, as a lease does, and runs out at expires_at
  // (epoch milliseconds of the store's clock).
  `
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
  `,
  // 9: a claim costs the same whatever the backlog (issue 22: claims that grew with it stalled the
  // process, SQLite being synchronous). Items never leased (or released) by job and domain: a job's
  // first claimable domain is a seek per domain skipped, not a walk over leased and skipped items.
  // Each job counts its leased items (kept by the trigger on every lease and result written), so
  // that counting a job's items in flight reads only its expired leases, not all its live ones.
  `
  CREATE INDEX job_items_free ON job_items (job_id, domain, position) WHERE result IS NULL AND lease_token IS NULL;
  ALTER TABLE jobs ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
  UPDATE jobs SET leased = (SELECT count(*) FROM job_items WHERE job_id = jobs.id AND result IS NULL AND lease_token IS NOT NULL)
  WHERE completed_at IS NULL;
  CREATE TRIGGER job_items_leased AFTER UPDATE OF lease_token, result ON job_items
  WHEN (OLD.result IS NULL AND OLD.lease_token IS NOT NULL) <> (NEW.result IS NULL AND NEW.lease_token IS NOT NULL)
  BEGIN
    UPDATE jobs SET leased = leased + iif(NEW.result IS NULL AND NEW.lease_token IS NOT NULL, 1, -1) WHERE id = NEW.job_id;
  END;
  `,
  // 10: webhooks (docs/architecture.md "Webhooks"): an account's endpoints (the signing secret kept:
  // every delivery is signed with it), the leased deliveries of events to them, and the newest attempts.
  `
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
  `,
  // 11: a single verification's refund names the charge it gives back, at most once (a unique key:
  // a refund retried after its COMMIT's answer was lost adds nothing), and a claimed Idempotency-Key
  // keeps the charge its request runs on, for the refund of a run that takes the claim over.
  `
  ALTER TABLE ledger ADD COLUMN refund_of INTEGER;
  CREATE UNIQUE INDEX ledger_refund_of ON ledger (refund_of) WHERE refund_of IS NOT NULL;
  ALTER TABLE idempotency ADD COLUMN charge_id INTEGER;
  `,
  // 12: webhooks bounded (docs/architecture.md "Webhooks"): why an endpoint was disabled and since
  // when it has been failing; an endpoint's deliveries by age (test events counted per account, a
  // removed endpoint's deliveries stopped); settled deliveries, attempts and finished jobs by age,
  // for pruning after their retention.
  `
  ALTER TABLE webhook_endpoints ADD COLUMN failing_since TEXT;
  ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason TEXT;
  UPDATE webhook_endpoints SET disabled_reason = 'The endpoint answered 410 Gone.' WHERE disabled_at IS NOT NULL;
  CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
  CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (done_at) WHERE done_at IS NOT NULL;
  CREATE INDEX webhook_attempts_by_age ON webhook_attempts (attempted_at);
  CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
  `,
  // 13: egress benches (docs/architecture.md "Egress"): an egress a mail provider refused for
  // reputation, benched there until a time (epoch ms), shared by the processes on the data dir.
  `
  CREATE TABLE egress_benches (
    egress        TEXT NOT NULL,
    provider      TEXT NOT NULL,
    benched_until INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    PRIMARY KEY (egress, provider)
  );
  CREATE INDEX egress_benches_by_provider ON egress_benches (provider, benched_until);
  `,
  // 14: a webhook claim reads each endpoint's oldest due delivery and its first few, never a whole
  // account's backlog (flows/webhooks.ts claimDeliveries): an endpoint's deliveries not done by due time.
  `
  CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE done_at IS NULL;
  `,
  // 15: scoped, expiring API tokens (docs/api.md "Token scopes"): tokens from before keep every scope and never expire.
  `
  ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'verify bulk results account';
  ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;
  `,
  // 16: the dashboard's month of usage reads a user's ledger by day (rows/dashboard.ts dailyCreditsSql).
  `
  CREATE INDEX ledger_by_user_time ON ledger (user_id, created_at);
  `,
];

/**
 * Brings the file to the newest schema. Runs under an immediate (write) transaction, so when
 * `serve` and `admin` open a fresh file at the same moment one migrates and the other then sees
 * the new version and does nothing.
 */
export function migrate(db: Database, migrations: readonly string[] = MIGRATIONS): number {
  // Up to date (every open but the first): no need to wait for the write lock a running server may hold.
  if (db.pragma('user_version', { simple: true }) === migrations.length) return migrations.length;
  const apply = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) {
      throw new Error(`the data file has schema version ${current}, newer than this mailverify knows (${migrations.length}); upgrade mailverify`);
    }
    for (const [index, sql] of migrations.entries()) {
      if (index < current) continue;
      db.exec(sql);
      db.pragma(`user_version = ${index + 1}`);
    }
    return migrations.length;
  });
  return apply.immediate();
}
