-- The dashboard's sign-in sessions (by the SHA-256 of their id), the list files uploaded there, and its job list.

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
