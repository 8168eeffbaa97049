-- Each user has a session epoch that every login JWT names, so that a new epoch (a password change)
-- or a deleted user ends them all (docs/api.md "Conventions"). Ids need nothing here: an identity
-- column never gives out the same id twice (SQLite's step makes its ids so).

ALTER TABLE users ADD COLUMN session_epoch TEXT NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text);

-- A new epoch changes what nodes cache about a caller, as a new rate limit does.
DROP TRIGGER users_identity_change ON users;
CREATE TRIGGER users_identity_change AFTER UPDATE OF rate_limit, rate_window_seconds, session_epoch OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_identity_change();
