import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Holder } from '../model.js';
import type { HolderRegistry } from '../store.js';
import type { Statements } from './database.js';
import { LastingSession } from './lasting-session.js';

/** A holder's session is named `mailverify-holder:<id>` (application_name), which pg_stat_activity shows every node. */
const PREFIX = 'mailverify-holder:';
/** Pause before a holder's lost session is made again. */
const RECONNECT_MS = 500;
/**
 * After the database (re)starts, every holder's session is gone until it reconnects: for this long
 * none is taken for dead, so a restart does not hand every chunk in progress to someone else.
 */
const RESTART_GRACE = '15 seconds';

/**
 * Whether a holder's session is connected, or the database started too recently to tell. A runner
 * killed by any means (SIGKILL, OOM, power) loses its TCP connection, and PostgreSQL ends the
 * backend at once: its leases are taken over at the next rescue, seconds later, not after a lease.
 */
export async function holderIsAlive(sql: Statements, holder: string): Promise<boolean> {
  const row = await sql.row<{ alive: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1)
       OR clock_timestamp() - pg_postmaster_start_time() < interval '${RESTART_GRACE}' AS alive`,
    [PREFIX + holder],
  );
  return row!.alive;
}

export function postgresHolders(config: pg.ClientConfig): HolderRegistry {
  return {
    async join(): Promise<Holder> {
      const id = randomUUID();
      // One connection per holder, held for its lifetime and doing nothing but exist; remade under
      // the same name when lost (the database restarted), so the holder keeps its leases.
      const session = new LastingSession({ ...config, application_name: PREFIX + id }, RECONNECT_MS);
      await session.start();
      return { id, leave: () => session.close() };
    },
  };
}
