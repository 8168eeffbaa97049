-- Scoped, expiring API tokens (docs/api.md "Token scopes"): tokens from before keep every scope and never expire.

ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'verify bulk results account';
ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;
