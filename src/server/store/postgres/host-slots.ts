import { takeHostSlot, type HeldSlot, type HostSlotSteps } from '../flows/host-slots.js';
import { runAwaiting } from '../flows/flow.js';
import type { HostSlotRequest } from '../model.js';
import type { HostSlotStore } from '../store.js';
import type { Database, Statements } from './database.js';
import { aliveAt } from './holders.js';

/**
 * Host slots on PostgreSQL, for processes on any number of machines. Takes at one egress and host
 * are serialised by a transaction-scoped advisory lock on the pair (two hosts whose keys share a
 * hash merely wait for each other), so two takes never see the same slot free.
 */
export class PostgresHostSlots implements HostSlotStore {
  constructor(private readonly db: Database) {}

  take(request: HostSlotRequest): Promise<string | undefined> {
    return this.db.clockedTransaction((sql, now) => runAwaiting(takeHostSlot(this.steps(sql), request, now)));
  }

  async release(slotId: string): Promise<void> {
    await this.db.sql.run('DELETE FROM host_slots WHERE id = $1', [slotId]);
  }

  async renew(slotIds: readonly string[], ttlMs: number): Promise<number> {
    const now = await this.db.leaseClock(this.db.sql);
    return this.db.sql.run('UPDATE host_slots SET expires_at = $1 WHERE id = ANY($2::text[])', [now + ttlMs, slotIds]);
  }

  private steps(sql: Statements): HostSlotSteps {
    return {
      lock: async (egress, host) => void (await sql.run('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${egress} ${host}`])),
      unexpired: (egress, host, now) =>
        sql.rows<HeldSlot>('SELECT slot, holder FROM host_slots WHERE egress = $1 AND host = $2 AND expires_at > $3', [egress, host, now]),
      isAlive: aliveAt(this.db, sql),
      interactiveWaits: async (egress, host, now) =>
        (await sql.row('SELECT 1 FROM host_slot_waits WHERE egress = $1 AND host = $2 AND waits_until > $3', [egress, host, now])) !== undefined,
      setInteractiveWait: async (egress, host, until) =>
        void (await (until === null
          ? sql.run('DELETE FROM host_slot_waits WHERE egress = $1 AND host = $2', [egress, host])
          : sql.run(
              `INSERT INTO host_slot_waits (egress, host, waits_until) VALUES ($1, $2, $3)
               ON CONFLICT (egress, host) DO UPDATE SET waits_until = EXCLUDED.waits_until`,
              [egress, host, until],
            ))),
      occupy: async ({ egress, host, holder }, slot, id, expiresAt) =>
        void (await sql.run(
          `INSERT INTO host_slots (egress, host, slot, id, holder, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (egress, host, slot) DO UPDATE SET id = EXCLUDED.id, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at`,
          [egress, host, slot, id, holder, expiresAt],
        )),
    };
  }
}
