-- A user's id is never given to another user (AUTOINCREMENT: SQLite otherwise hands out the newest
-- deleted id again), and each user has a session epoch that every login JWT names, so that a new
-- epoch (a password change) or a deleted user ends them all (docs/api.md "Conventions").
-- SQLite cannot add AUTOINCREMENT to a table: users is made again and its rows copied with their
-- ids, the way SQLite's ALTER TABLE documentation ("Making Other Kinds Of Table Schema Changes")
-- does it. migrate.ts runs migrations with foreign keys off, so that dropping the old table deletes
-- nothing that points at it, and checks every foreign key before it commits.

CREATE TABLE users_rebuilt (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  email               TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash       TEXT,
  -- The CHECK is a last line of defence; charges are conditional updates that never reach it.
  balance             INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
  rate_limit          INTEGER NOT NULL CHECK (rate_limit > 0),
  rate_window_seconds INTEGER NOT NULL CHECK (rate_window_seconds > 0),
  created_at          TEXT NOT NULL,
  session_epoch       TEXT NOT NULL DEFAULT (lower(hex(randomblob(16))))
);
INSERT INTO users_rebuilt (id, email, password_hash, balance, rate_limit, rate_window_seconds, created_at)
  SELECT id, email, password_hash, balance, rate_limit, rate_window_seconds, created_at FROM users ORDER BY id;
DROP TABLE users;
ALTER TABLE users_rebuilt RENAME TO users;
