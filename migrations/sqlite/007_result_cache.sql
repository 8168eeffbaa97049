-- Verdicts kept for reuse across jobs (see ResultCacheStore), and jobs that ask for none.

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
