-- Evidence receivers (docs/evidence.md "Live from an ESP"): an account's URLs that SendGrid's signed
-- event webhook or an SNS topic posts bounces and deliveries to. The URL's secret is kept only as
-- its SHA-256 (url_hash), the lookup key of every post.

CREATE TABLE evidence_receivers (
  id            TEXT PRIMARY KEY,
  user_id       BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN ('sendgrid', 'sns')),
  url_hash      TEXT NOT NULL UNIQUE,
  public_key    TEXT,
  topic_arn     TEXT,
  created_at    TEXT NOT NULL,
  confirmed_at  TEXT,
  last_event_at TEXT
);
CREATE INDEX evidence_receivers_by_user ON evidence_receivers (user_id);
