-- SMTP session slots at mail hosts, shared by every process on this database (see
-- store/postgres/host-slots.ts): a slot names its holder, as a lease does, and runs out at expires_at
-- (epoch milliseconds of the database's clock).

CREATE TABLE host_slots (
  egress     TEXT NOT NULL,
  host       TEXT NOT NULL,
  slot       INTEGER NOT NULL,
  id         TEXT NOT NULL UNIQUE,
  holder     TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (egress, host, slot)
);
CREATE INDEX host_slots_by_holder ON host_slots (holder);
-- An interactive take waiting at a full host, until when: bulk takes there make way.
CREATE TABLE host_slot_waits (
  egress      TEXT NOT NULL,
  host        TEXT NOT NULL,
  waits_until BIGINT NOT NULL,
  PRIMARY KEY (egress, host)
);
