import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Holder } from '../model.js';
import { newProcessHolderId, processIsGone } from '../processes.js';
import type { HolderRegistry } from '../store.js';
import type { Database, Statements } from './database.js';
import { LastingSession } from './lasting-session.js';

/** A holder's session is named `mailverify-holder:<id>` (application_name), which pg_stat_activity shows every node. */
const PREFIX = 'mailverify-holder:';
/** Pause before a holder's lost session is made again. */
const RECONNECT_MS = 500;

/**
 * The timing of liveness on PostgreSQL (docs/architecture.md "Liveness beside leases"):
 *
 * - every CHECK_EVERY_MS a holder asks the server through its own session, which must answer
 *   within CHECK_TIMEOUT_MS (else the session is made again);
 * - a holder none of whose checks sent in the last LAPSE_AFTER_MS was answered loses its standing:
 *   it stops working its leases;
 * - other nodes take a holder for gone once they have seen its session missing for ABSENCE_GRACE_MS.
 *
 * Its session was there when it answered the last check, so others cannot have seen it missing
 * before that check was sent: the holder stops at least ABSENCE_GRACE_MS - LAPSE_AFTER_MS (1.5 s,
 * room for a late timer and an answer in flight) before anyone may take its leases. The grace also
 * covers a database restart or failover: every session is missing until it reconnects, and the
 * grace counts from when each is first seen missing on the server now answering.
 */
const CHECK_EVERY_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_500;
const LAPSE_AFTER_MS = 3_500;
export const ABSENCE_GRACE_MS = 5_000;
/** Absences older than this are forgotten: a holder gone that long has had its leases taken long since. */
const FORGET_ABSENCES_MS = 24 * 60 * 60_000;

/**
 * Whether a holder still exists, at `now` (the lease clock): its session is connected, or it has
 * been seen missing for less than the grace (the first look that misses it notes when). A runner
 * killed by any means (SIGKILL, OOM, power) loses its TCP connection and PostgreSQL ends the
 * backend at once: its leases are taken over at the first rescue after the grace.
 */
async function holderIsAlive(sql: Statements, holder: string, now: number): Promise<boolean> {
  const row = await sql.row<{ alive: boolean }>(
    `WITH here AS (SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1) AS present),
     noted AS (
       INSERT INTO holder_absences (holder, since) SELECT $2, $3::bigint WHERE NOT (SELECT present FROM here)
       ON CONFLICT (holder) DO NOTHING),
     forgotten AS (DELETE FROM holder_absences WHERE since < $3::bigint - $5::bigint)
     SELECT (SELECT present FROM here)
       OR coalesce((SELECT $3::bigint - since < $4::bigint FROM holder_absences WHERE holder = $2), true) AS alive`,
    [PREFIX + holder, holder, now, ABSENCE_GRACE_MS, FORGET_ABSENCES_MS],
  );
  return row!.alive;
}

/**
 * The liveness check of one transaction: the lease clock read once, at its first check. A holder
 * naming a process of this machine that is gone is gone at once, without the grace.
 */
export function aliveAt(db: Database, sql: Statements): (holder: string) => Promise<boolean> {
  let now: Promise<number> | undefined;
  return async (holder) => !processIsGone(holder) && holderIsAlive(sql, holder, await (now ??= db.leaseClock(sql)));
}

/** A holder's standing: lost when its session has not answered in time, back when it answers again. */
class Standing {
  private confirmedAt = performance.now();
  private lapsed = false;
  private readonly listeners: (() => void)[] = [];
  private readonly watch = setInterval(() => this.look(), CHECK_EVERY_MS / 4).unref();

  confirmed(sentAt: number): void {
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
    if (performance.now() - this.confirmedAt <= LAPSE_AFTER_MS) this.lapsed = false;
  }

  standing(): boolean {
    this.look();
    return !this.lapsed;
  }

  onLapse(listener: () => void): void {
    this.listeners.push(listener);
  }

  stop(): void {
    clearInterval(this.watch);
  }

  private look(): void {
    if (this.lapsed || performance.now() - this.confirmedAt <= LAPSE_AFTER_MS) return;
    this.lapsed = true;
    for (const listener of this.listeners) listener();
  }
}

export function postgresHolders(config: pg.ClientConfig): HolderRegistry {
  return {
    async join(): Promise<Holder> {
      const id = newProcessHolderId(randomUUID().slice(0, 8));
      const standing = new Standing();
      // Asking also clears a note of this holder's absence (one made while it reconnected), so that
      // the grace counts afresh from the next time it is missing.
      const check = { statement: 'DELETE FROM holder_absences WHERE holder = $1', values: [id] };
      // One connection per holder, held for its lifetime and doing little but exist; remade under
      // the same name when lost (the database restarted, the network dropped it), so the holder keeps its leases.
      const session = new LastingSession(
        { ...config, application_name: PREFIX + id },
        RECONNECT_MS,
        async (client) => void (await client.query(check.statement, check.values)),
        () => undefined,
        { ...check, everyMs: CHECK_EVERY_MS, timeoutMs: CHECK_TIMEOUT_MS, onConfirmed: (sentAt) => standing.confirmed(sentAt) },
      );
      await session.start();
      return {
        id,
        standing: () => standing.standing(),
        onLapse: (listener) => standing.onLapse(listener),
        leave: async () => {
          standing.stop();
          await session.close();
        },
      };
    },
  };
}
