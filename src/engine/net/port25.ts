import { DialError, type Dialer } from './egress.js';
import type { NetworkStatusBoard } from './network-status.js';

/** Mail hosts whose connections must all time out before we suspect the port. */
const SUSPECT_AFTER_HOSTS = 3;
/** While blocked, the check hosts are tried again this often, to notice the port open again. */
export const RECHECK_MS = 60_000;
/** Confirmations start at most this often, however many timeouts customers' hosts give. */
export const CONFIRM_INTERVAL_MS = 60_000;

/** What a user is told when port `port` looks blocked, and what to do about it. */
export function blockedPortReason(port: number, detail: string): string {
  return `outbound port ${port} appears blocked on this network: ${detail}; use --proxy or run where port ${port} is open`;
}

/** A host the confirmation dials: a name and the address we resolved, or why it cannot be tried. */
export type CheckTarget = { host: string; address: string } | { host: string; unusable: string };

export interface Clock {
  now(): number;
}

export interface Port25WatchOptions {
  port: number;
  connectTimeoutMs: number;
  /** This egress's own dialer, unwatched: the confirmation goes out the way the probes do (source address, proxy). */
  dial: Dialer;
  /**
   * The hosts no customer picks: the providers' mail hosts the start-up check uses, or the ones
   * the operator named (`--port25-check-host`). Asked at each confirmation (DNS may change).
   */
  checkTargets: () => Promise<readonly CheckTarget[]>;
  board: NetworkStatusBoard;
  clock?: Clock;
}

/** How a confirmation ended: a check host answered, every one timed out, or nothing could be tried. */
export type Confirmation = 'open' | 'blocked' | 'inconclusive';

/**
 * Outbound SMTP blocked (most clouds and home ISPs drop port 25), judged from hosts no customer
 * picks (docs/architecture.md "Egress"). Connections to customers' mail hosts timing out (no answer
 * at all; a refusal is an answer) at several distinct hosts with none getting through meanwhile
 * make the egress *suspect*: each of those timeouts stays its own host's `unknown` (timeout), and
 * a confirmation dials the check hosts through the same dialer. Only when every one of them times
 * out too is the port *blocked*: connections then fail at once with a reason that says so, and the
 * check hosts are tried again every RECHECK_MS. Any connection that gets through (a check host's
 * or a customer's) clears the suspicion; a confirmation that gets through opens a blocked port.
 * One confirmation runs at a time, and they start at most once per CONFIRM_INTERVAL_MS.
 */
export class Port25Watch {
  /** Hosts whose connection timed out with no success since that connection started. */
  private readonly timedOut = new Set<string>();
  private lastSuccessAt = Number.NEGATIVE_INFINITY;
  private blockedReason: string | null = null;
  private nextRecheckAt = 0;
  private confirming: Promise<Confirmation> | null = null;
  /** Timeouts waiting for the port's verdict (`verdictOn`). */
  private readonly waiting = new Set<(reason: string | null) => void>();
  private lastConfirmationAt = Number.NEGATIVE_INFINITY;
  private readonly clock: Clock;
  /** The egress's dialer, watched: what probes use. */
  readonly dial: Dialer;

  constructor(private readonly options: Port25WatchOptions) {
    this.clock = options.clock ?? Date;
    this.dial = this.watch(options.dial);
  }

  get state(): 'unknown' | 'open' | 'suspect' | 'blocked' {
    return this.options.board.status().port25.state;
  }

  /** `dial`, watched: its timeouts and successes are counted, and it is not called while the port is blocked. */
  watch(dial: Dialer): Dialer {
    return async (address, port, timeoutMs) => {
      const startedAt = this.clock.now();
      if (this.blockedReason !== null) {
        if (startedAt >= this.nextRecheckAt) await this.confirm();
        if (this.blockedReason !== null) throw new DialError(this.blockedReason, false, 'port-blocked');
      }
      try {
        const socket = await dial(address, port, timeoutMs);
        this.succeeded();
        return socket;
      } catch (error) {
        if (error instanceof DialError && error.timedOut) {
          this.timeOut(address, startedAt);
          error.portCheck = this.verdictOn(startedAt);
        }
        throw error;
      }
    };
  }

  /**
   * Dials the check hosts now (the start-up check; a suspicion's confirmation), or joins the one
   * under way. Whatever it finds is the port's state; an inconclusive one changes nothing.
   */
  confirm(): Promise<Confirmation> {
    if (this.confirming) return this.confirming;
    this.lastConfirmationAt = this.clock.now();
    if (this.blockedReason !== null) this.nextRecheckAt = this.lastConfirmationAt + RECHECK_MS;
    this.confirming = this.dialCheckHosts().finally(() => {
      this.confirming = null;
      this.settleWaiting();
    });
    return this.confirming;
  }

  private async dialCheckHosts(): Promise<Confirmation> {
    const { port, connectTimeoutMs, dial, board } = this.options;
    const targets: readonly CheckTarget[] = await this.options.checkTargets().catch((error: Error) => [{ host: 'check hosts', unusable: error.message }]);
    const usable = targets.filter((target): target is { host: string; address: string } => 'address' in target);
    // No check host to try (DNS fails, the operator's host does not resolve): nothing learnt.
    if (usable.length === 0) return 'inconclusive';
    const answers = await Promise.all(
      usable.map((target) =>
        dial(target.address, port, connectTimeoutMs).then(
          (socket) => {
            socket.destroy();
            return 'answered' as const;
          },
          // A refusal is an answer (the port gets out); a failing proxy says nothing of the port.
          (error: unknown) =>
            error instanceof DialError && error.timedOut
              ? ('timeout' as const)
              : error instanceof DialError && error.condition === null
                ? ('answered' as const)
                : ('failed' as const),
        ),
      ),
    );
    if (answers.includes('answered')) {
      this.succeeded();
      return 'open';
    }
    if (!answers.every((answer) => answer === 'timeout')) return 'inconclusive';
    // Named: the check hosts only. Customers' hosts are in the suspicion's log line, never in other customers' reasons.
    const hosts = usable.map((target) => `${target.host} (${target.address})`).join(', ');
    this.blockedReason = `${blockedPortReason(port, `none of the check hosts answered (${hosts} all timed out)`)} (see \`mailverify doctor\`)`;
    this.nextRecheckAt = this.clock.now() + RECHECK_MS;
    board.set('port25', { state: 'blocked', reason: this.blockedReason });
    return 'blocked';
  }

  /** No reason kept: the board tells listeners of each new reason, and every connection succeeds differently. */
  private succeeded(): void {
    this.lastSuccessAt = this.clock.now();
    this.timedOut.clear();
    this.blockedReason = null;
    this.options.board.set('port25', { state: 'open' });
    this.settleWaiting();
  }

  /**
   * What a timeout that started at `startedAt` turns out to be: the blocked-port reason when a
   * check concludes the port blocked, null (the host's own timeout) once a connection gets through
   * or a check finds it open or learns nothing. A timeout with no check under way starts one after
   * a connect timeout, so the first timeouts of a blocked port are named as the later ones are.
   */
  private verdictOn(startedAt: number): Promise<string | null> {
    if (this.lastSuccessAt >= startedAt) return Promise.resolve(null);
    if (this.blockedReason !== null) return Promise.resolve(this.blockedReason);
    return new Promise((resolve) => {
      this.waiting.add(resolve);
      setTimeout(() => {
        if (!this.waiting.has(resolve) || this.confirming) return;
        if (this.clock.now() - this.lastConfirmationAt >= CONFIRM_INTERVAL_MS) void this.confirm();
        else this.settle(resolve, null);
      }, this.options.connectTimeoutMs).unref();
    });
  }

  private settle(resolve: (reason: string | null) => void, reason: string | null): void {
    this.waiting.delete(resolve);
    resolve(reason);
  }

  /** Every timeout waiting for a verdict gets the port's: blocked with its reason, else its own. */
  private settleWaiting(): void {
    for (const resolve of [...this.waiting]) this.settle(resolve, this.blockedReason);
  }

  private timeOut(address: string, startedAt: number): void {
    if (this.lastSuccessAt >= startedAt) return; // the network carried another connection meanwhile
    this.timedOut.add(address);
    if (this.blockedReason !== null || this.timedOut.size < SUSPECT_AFTER_HOSTS) return;
    if (this.state !== 'suspect') {
      const hosts = [...this.timedOut].slice(0, SUSPECT_AFTER_HOSTS).join(', ');
      const reason = `connections to ${this.timedOut.size} mail hosts (${hosts}) timed out and none got through`;
      this.options.board.set('port25', { state: 'suspect', reason });
    }
    if (this.clock.now() - this.lastConfirmationAt >= CONFIRM_INTERVAL_MS) void this.confirm();
  }
}
