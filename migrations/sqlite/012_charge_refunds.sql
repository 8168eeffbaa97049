-- A single verification's refund names the charge it gives back, at most once (a unique key:
-- a refund retried after its COMMIT's answer was lost adds nothing), and a claimed Idempotency-Key
-- keeps the charge its request runs on, for the refund of a run that takes the claim over.

ALTER TABLE ledger ADD COLUMN refund_of INTEGER;
CREATE UNIQUE INDEX ledger_refund_of ON ledger (refund_of) WHERE refund_of IS NOT NULL;
ALTER TABLE idempotency ADD COLUMN charge_id INTEGER;
