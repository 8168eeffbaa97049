import pg from 'pg';

/**
 * A connection of its own kept for the process's life (the change listener's, a holder's): when it
 * is lost (the database restarted, a network cut) it is made again after `retryMs`, for as long as
 * it is not closed. `setUp` runs on each new connection (LISTEN, say); `onLost` is told of each loss.
 * A failed first start is thrown to the caller and retried all the same; nothing here is fatal.
 */
export class LastingSession {
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly retryMs: number,
    private readonly setUp: (client: pg.Client) => Promise<void> = async () => undefined,
    private readonly onLost: () => void = () => undefined,
  ) {}

  /** Resolves once connected and set up. */
  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      await this.setUp(client);
    } catch (error) {
      this.lost(client);
      throw error;
    }
  }

  /** The same client is retired once, whichever of its error, its end or a failed start comes first. */
  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.onLost();
    client.end().catch(() => undefined);
    // start() reports its own failure through lost() again; the rejection itself has no one to tell.
    this.retry = setTimeout(() => void this.start().catch(() => undefined), this.retryMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }
}
