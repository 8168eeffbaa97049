import type pg from 'pg';
import { LastingSession } from './lasting-session.js';

/** The channel the schema's triggers notify when a cached identity changed (see migrations.ts). */
const CHANNEL = 'mailverify_identity';
/** Pause before listening again after the listening connection was lost. */
const RELISTEN_MS = 1_000;

/**
 * Store.dataVersion on PostgreSQL: a count of the change notifications this node received on a
 * connection of its own. Commits that revoke a token or change a rate limit (on any node, or by
 * `admin`) notify; the count moves as their notification arrives, within milliseconds. A lost
 * connection counts as a change (what it missed is unknown) and is replaced.
 */
export class ChangeCounter {
  private count = 0;
  private readonly session: LastingSession;

  constructor(config: pg.ClientConfig) {
    this.session = new LastingSession(
      config,
      RELISTEN_MS,
      async (client) => {
        client.on('notification', () => this.count++);
        await client.query(`LISTEN ${CHANNEL}`);
      },
      () => this.count++,
    );
  }

  get version(): number {
    return this.count;
  }

  /** Resolves once listening, so a change committed after it is counted. */
  listen(): Promise<void> {
    return this.session.start();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
