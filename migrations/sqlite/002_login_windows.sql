-- Login attempts per address and per client IP, so that several instances share one limit.
-- Keyed by window first: pruning every past window is one range of the primary key.

CREATE TABLE login_windows (
  window_start INTEGER NOT NULL,
  key          TEXT NOT NULL,
  count        INTEGER NOT NULL,
  PRIMARY KEY (window_start, key)
) WITHOUT ROWID;
