-- Liveness: since when (lease clock, epoch ms) a holder's session has been seen missing; a holder
-- is gone once missing for the grace (store/postgres/holders.ts), and deletes its row while it is back.

CREATE TABLE holder_absences (holder TEXT PRIMARY KEY, since BIGINT NOT NULL);
