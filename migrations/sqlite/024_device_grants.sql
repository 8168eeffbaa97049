-- Logging in through the browser (docs/api.md "Logging in from a device"): the OAuth 2.0 device
-- authorization grant (RFC 8628). A row is one device's request: only the SHA-256 of its device code
-- and of its user code are kept, the scopes it asks, until when it may be approved, how often it may
-- poll, and, once someone signed in decided, whose it is and what they said. `issued` once its token
-- was handed out: a code is used once.

CREATE TABLE device_grants (
  device_code_hash TEXT PRIMARY KEY,
  user_code_hash   TEXT NOT NULL UNIQUE,
  client_name      TEXT NOT NULL,
  scopes           TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  expires_at       TEXT NOT NULL,
  interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
  last_polled_at   TEXT,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'issued')),
  user_id          INTEGER REFERENCES users (id) ON DELETE CASCADE,
  decided_at       TEXT
);
CREATE INDEX device_grants_by_expiry ON device_grants (expires_at);
