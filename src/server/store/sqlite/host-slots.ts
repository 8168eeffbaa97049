import { takeHostSlot, type HeldSlot, type HostSlotSteps } from '../flows/host-slots.js';
import { runNow } from '../flows/flow.js';
import type { HostSlotRequest } from '../model.js';
import type { Connection } from './database.js';
import { processIsAlive } from '../processes.js';

/** Host slots on SQLite, for the processes of one host: every take is one IMMEDIATE transaction, so takes are serialised. */
export class SqliteHostSlots {
  private readonly sql;
  private readonly steps: HostSlotSteps;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      unexpired: prepare<HeldSlot>('SELECT slot, holder FROM host_slots WHERE egress = ? AND host = ? AND expires_at > ?'),
      occupy: prepare(
        `INSERT INTO host_slots (egress, host, slot, id, holder, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (egress, host, slot) DO UPDATE SET id = excluded.id, holder = excluded.holder, expires_at = excluded.expires_at`,
      ),
      release: prepare('DELETE FROM host_slots WHERE id = ?'),
      renew: prepare('UPDATE host_slots SET expires_at = ? WHERE id IN (SELECT value FROM json_each(?))'),
      interactiveWaits: prepare('SELECT 1 FROM host_slot_waits WHERE egress = ? AND host = ? AND waits_until > ?'),
      wait: prepare(
        `INSERT INTO host_slot_waits (egress, host, waits_until) VALUES (?, ?, ?)
         ON CONFLICT (egress, host) DO UPDATE SET waits_until = excluded.waits_until`,
      ),
      endWait: prepare('DELETE FROM host_slot_waits WHERE egress = ? AND host = ?'),
    };
    this.steps = {
      // The IMMEDIATE transaction holds the file's write lock already.
      lock: () => undefined,
      unexpired: (egress, host, now) => this.sql.unexpired.all(egress, host, now),
      isAlive: processIsAlive,
      interactiveWaits: (egress, host, now) => this.sql.interactiveWaits.get(egress, host, now) !== undefined,
      setInteractiveWait: (egress, host, until) => void (until === null ? this.sql.endWait.run(egress, host) : this.sql.wait.run(egress, host, until)),
      occupy: ({ egress, host, holder }, slot, id, expiresAt) => void this.sql.occupy.run(egress, host, slot, id, holder, expiresAt),
    };
  }

  private nowMs(): number {
    return this.connection.now().getTime();
  }

  take(request: HostSlotRequest): string | undefined {
    return this.connection.db.transaction(() => runNow(takeHostSlot(this.steps, request, this.nowMs()))).immediate();
  }

  release(slotId: string): void {
    this.sql.release.run(slotId);
  }

  renew(slotIds: readonly string[], ttlMs: number): number {
    return this.sql.renew.run(this.nowMs() + ttlMs, JSON.stringify(slotIds)).changes;
  }
}
