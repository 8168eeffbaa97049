import pg from 'pg';

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
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly config: pg.ClientConfig) {}

  get version(): number {
    return this.count;
  }

  /**
   * Resolves once listening, so a change committed after it is counted. A failure is thrown (the
   * first listen is part of opening the store) and also handled as a lost connection: the same
   * client is retired once, whichever of its error, its end or this failure comes first.
   */
  async listen(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('notification', () => this.count++);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.lost(client);
      throw error;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.count++;
    client.end().catch(() => undefined);
    // listen() reports its own failure through lost() again; the rejection itself has no one to tell.
    this.retry = setTimeout(() => void this.listen().catch(() => undefined), RELISTEN_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end();
  }
}
