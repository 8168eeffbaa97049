import { DialError, type Dialer } from './egress.js';
import type { NetworkStatusBoard } from './network-status.js';

/** Mail hosts whose connections must all time out before we call the port blocked. */
const BLOCKED_AFTER_HOSTS = 3;
/** While blocked, one real connection is tried this often, to notice the port open again. */
export const RECHECK_MS = 60_000;

/** What a user is told when port `port` looks blocked, and what to do about it. */
export function blockedPortReason(port: number, detail: string): string {
  return `outbound port ${port} appears blocked on this network: ${detail}; use --proxy or run where port ${port} is open`;
}

interface Clock {
  now(): number;
}

/**
 * Outbound SMTP blocked (most clouds and home ISPs drop port 25): when connections to several
 * distinct mail hosts all time out (no answer at all; a refusal is an answer) and none succeeds
 * meanwhile, the port is taken to be blocked. From then on connections fail at once with a reason
 * that says so, instead of each spending the whole connect timeout, except one every RECHECK_MS
 * that tries for real; any connection that succeeds opens the port again.
 */
export class Port25Watch {
  /** Hosts whose connection timed out with no success since that connection started. */
  private readonly timedOut = new Set<string>();
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private blockedReason: string | null = null;
  private nextRecheckAt = 0;

  constructor(
    private readonly port: number,
    private readonly board: NetworkStatusBoard,
    private readonly clock: Clock = Date,
  ) {}

  /** `dial`, watched: its timeouts and successes are counted, and it is not called while the port is blocked. */
  watch(dial: Dialer): Dialer {
    return async (address, port, timeoutMs) => {
      const startedAt = this.clock.now();
      if (this.blockedReason !== null) {
        if (startedAt < this.nextRecheckAt) throw new DialError(this.blockedReason, false, 'port-blocked');
        this.nextRecheckAt = startedAt + RECHECK_MS;
      }
      try {
        const socket = await dial(address, port, timeoutMs);
        this.succeeded();
        return socket;
      } catch (error) {
        if (error instanceof DialError && error.timedOut) this.timeOut(address, startedAt);
        throw error;
      }
    };
  }

  private succeeded(): void {
    this.lastSuccessAt = this.clock.now();
    this.timedOut.clear();
    this.blockedReason = null;
    this.board.set('port25', { state: 'open' });
  }

  private timeOut(address: string, startedAt: number): void {
    if (this.lastSuccessAt >= startedAt) return; // the network carried another connection meanwhile
    this.timedOut.add(address);
    if (this.blockedReason !== null || this.timedOut.size < BLOCKED_AFTER_HOSTS) return;
    const hosts = [...this.timedOut].slice(0, BLOCKED_AFTER_HOSTS).join(', ');
    const detail = `connections to ${this.timedOut.size} mail hosts (${hosts}) all timed out and none got through`;
    this.blockedReason = `${blockedPortReason(this.port, detail)} (see \`mailverify doctor\`)`;
    this.nextRecheckAt = this.clock.now() + RECHECK_MS;
    this.board.set('port25', { state: 'blocked', reason: this.blockedReason });
  }
}
