-- Evidence (docs/evidence.md): an account's own bounces, deliveries, complaints and deferrals, one
-- row per event, keyed by the engine's address key so that case rules match the result cache. The
-- fingerprint (a hash of the event as kept) makes an identical event imported twice one row. Rows
-- go with the account (ON DELETE CASCADE) and under --retention by imported_at; never in the
-- shared result cache.

CREATE TABLE evidence (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email_key   TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('bounce', 'delivery', 'complaint', 'deferral')),
  at          TEXT NOT NULL,
  status      TEXT,
  diagnostic  TEXT,
  source      TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  imported_at TEXT NOT NULL,
  UNIQUE (user_id, fingerprint)
);
CREATE INDEX evidence_by_address ON evidence (user_id, email_key, at);
CREATE INDEX evidence_by_import ON evidence (imported_at);
