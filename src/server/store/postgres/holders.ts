import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Holder } from '../model.js';
import type { HolderRegistry } from '../store.js';
import type { Statements } from './database.js';

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

/**
 * One connection per holder, held for its lifetime and doing nothing but exist. When it is lost
 * (the database restarted) it is made again with the same name, so the holder keeps its leases.
 */
class HolderSession {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly name: string,
  ) {}

  async connect(): Promise<void> {
    const client = new pg.Client({ ...this.config, application_name: this.name });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
    } catch (error) {
      this.lost(client);
      throw error;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.retry = setTimeout(() => void this.connect().catch(() => undefined), RECONNECT_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }
}

export function postgresHolders(config: pg.ClientConfig): HolderRegistry {
  return {
    async join(): Promise<Holder> {
      const id = randomUUID();
      const session = new HolderSession(config, PREFIX + id);
      await session.connect();
      return { id, leave: () => session.close() };
    },
  };
}
