import type pg from 'pg';
import { LastingSession } from './lasting-session.js';

/** The channel the schema's triggers notify when a cached identity changed (see migrations/postgres/001_accounts.sql). */
const IDENTITY_CHANNEL = 'mailverify_identity';
/** The channel a node notifies when it created a job (jobs.ts), so that every runner looks at once. */
export const WORK_CHANNEL = 'mailverify_work';
/** The payload on WORK_CHANNEL of a deletion of jobs with work (a job, an account): runners check their leases at once. */
export const WORK_DELETED = 'deleted';
/** Pause before listening again after the listening connection was lost. */
const RELISTEN_MS = 1_000;
/**
 * How often the listening connection is asked whether it still reaches the server: one dropped
 * without a word (a NAT gateway's idle drop) would hear no revocation again.
 */
const LISTENER_CHECK = { statement: 'SELECT 1', everyMs: 5_000, timeoutMs: 2_000 };

/**
 * What other nodes tell this one, on a connection of its own. Store.dataVersion: a count of the
 * identity notifications (commits that revoke a token or change a rate limit, on any node or by
 * `admin`); the count moves as they arrive, within milliseconds. Store.onNewWork: the listeners are
 * called when any node created a job. Store.onWorkDeleted: likewise when any node deleted jobs. A
 * lost connection counts as all three (what it missed is unknown) and is replaced.
 */
export class ChangeNotices {
  private count = 0;
  private readonly workListeners: (() => void)[] = [];
  private readonly deletionListeners: (() => void)[] = [];
  private readonly session: LastingSession;

  constructor(config: pg.ClientConfig) {
    this.session = new LastingSession(
      config,
      RELISTEN_MS,
      async (client) => {
        client.on('notification', ({ channel, payload }) => {
          if (channel !== WORK_CHANNEL) this.count++;
          else if (payload === WORK_DELETED) this.workDeleted();
          else this.newWork();
        });
        await client.query(`LISTEN ${IDENTITY_CHANNEL}; LISTEN ${WORK_CHANNEL}`);
      },
      () => {
        this.count++;
        this.newWork();
        this.workDeleted();
      },
      LISTENER_CHECK,
    );
  }

  get version(): number {
    return this.count;
  }

  onNewWork(listener: () => void): void {
    this.workListeners.push(listener);
  }

  onWorkDeleted(listener: () => void): void {
    this.deletionListeners.push(listener);
  }

  private newWork(): void {
    for (const listener of this.workListeners) listener();
  }

  private workDeleted(): void {
    for (const listener of this.deletionListeners) listener();
  }

  /** Resolves once listening, so a change committed after it is counted. */
  listen(): Promise<void> {
    return this.session.start();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}
