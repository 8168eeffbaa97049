-- The sandbox (docs/api.md "Sandbox"): a test token (`mv_test_…`) is answered by the engine's
-- sandbox and charged nothing, and the jobs it submits are sandbox jobs, which only test tokens read.
-- Tokens and jobs from before are live.

ALTER TABLE api_tokens ADD COLUMN test INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0;
