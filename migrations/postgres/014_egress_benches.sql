-- Egress benches (docs/architecture.md "Egress"): an egress a mail provider refused for
-- reputation, benched there until a time (lease clock, epoch ms), shared by every node.

CREATE TABLE egress_benches (
  egress        TEXT NOT NULL,
  provider      TEXT NOT NULL,
  benched_until BIGINT NOT NULL,
  reason        TEXT NOT NULL,
  PRIMARY KEY (egress, provider)
);
CREATE INDEX egress_benches_by_provider ON egress_benches (provider, benched_until);
