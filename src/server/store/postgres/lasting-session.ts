import pg from 'pg';

/**
 * How a lasting session proves it still reaches the server: `statement` every `everyMs`, answered
 * within `timeoutMs`, else the session is taken for lost (a connection a NAT gateway or load
 * balancer dropped without a word gives no error and no end: only asking finds it out).
 */
export interface SessionCheck {
  statement: string;
  values?: unknown[];
  everyMs: number;
  timeoutMs: number;
  /** Told after each check answered (and after each set-up), with when it was sent (performance.now()). */
  onConfirmed?(sentAt: number): void;
}

/**
 * A connection of its own kept for the process's life (the change listener's, a holder's): when it
 * is lost (the database restarted, a network cut, a check unanswered) it is made again after
 * `retryMs`, for as long as it is not closed. `setUp` runs on each new connection (LISTEN, say);
 * `onLost` is told of each loss. A failed first start is thrown to the caller and retried all the
 * same; nothing here is fatal.
 */
export class LastingSession {
  private client: pg.Client | undefined;
  /** The client once connected and set up: the one checks ask. */
  private ready: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly checks: NodeJS.Timeout | undefined;
  private checking = false;
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly retryMs: number,
    private readonly setUp: (client: pg.Client) => Promise<void> = async () => undefined,
    private readonly onLost: () => void = () => undefined,
    private readonly check?: SessionCheck,
  ) {
    if (check) this.checks = setInterval(() => void this.checkNow(check), check.everyMs).unref();
  }

  /** Resolves once connected and set up. */
  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      const sentAt = performance.now();
      await client.connect();
      await this.setUp(client);
      if (this.client !== client) return;
      this.ready = client;
      this.check?.onConfirmed?.(sentAt);
    } catch (error) {
      this.lost(client);
      throw error;
    }
  }

  /** One check at a time, on the connected client only: one that fails or times out retires it. */
  private async checkNow(check: SessionCheck): Promise<void> {
    const client = this.ready;
    if (!client || this.checking || this.closed) return;
    this.checking = true;
    const sentAt = performance.now();
    try {
      await client.query({ text: check.statement, values: check.values, query_timeout: check.timeoutMs } as pg.QueryConfig);
      if (this.ready === client) check.onConfirmed?.(sentAt);
    } catch {
      this.lost(client);
    } finally {
      this.checking = false;
    }
  }

  /** The same client is retired once, whichever of its error, its end, a failed check or a failed start comes first. */
  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.ready = undefined;
    this.onLost();
    void discard(client);
    // start() reports its own failure through lost() again; the rejection itself has no one to tell.
    this.retry = setTimeout(() => void this.start().catch(() => undefined), this.retryMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.checks);
    if (this.client) await discard(this.client);
  }
}

/** How long a goodbye to the server may take before the socket is simply closed. */
const GOODBYE_MS = 1_000;

/**
 * Ends a client, politely if the server answers: pg's end() waits for the server to close its
 * side, which one behind a connection dropped without a word never does.
 */
async function discard(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), GOODBYE_MS)));
  const ended = await Promise.race([client.end().catch(() => undefined), late]);
  clearTimeout(timer);
  if (ended === 'late') (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
}
