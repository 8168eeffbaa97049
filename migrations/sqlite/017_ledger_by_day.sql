-- The dashboard's month of usage reads a user's ledger by day (store/rows/dashboard.ts dailyCreditsSql).

CREATE INDEX ledger_by_user_time ON ledger (user_id, created_at);
