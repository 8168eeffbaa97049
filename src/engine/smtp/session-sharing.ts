import type { SessionTarget } from './session.js';

/** What SessionSharing needs of a domain's prober. */
export interface SessionTaker {
  /** Whether it has addresses queued for `target` and would open another session there if it could. */
  wantsSessionAt(target: SessionTarget): boolean;
  /** Sessions it is asking in now (fewest first: a domain with none gets a session before one with some). */
  readonly sessions: number;
}

/**
 * Which domains have addresses queued at each mail host, per share (a user's work): a session done
 * with one domain's addresses goes on with another's at the same host instead of saying QUIT while
 * the next domain opens its own. Mail hosts serve many domains (every Google Workspace or Microsoft
 * 365 domain shares their MX hosts), and RCPT TO for another domain in the same transaction is
 * ordinary SMTP; it spares a connection, the greeting, EHLO, MAIL FROM and QUIT, and keeps the
 * host's connection count down. The slot stays with the session, so no limit is crossed.
 */
export class SessionSharing<Taker extends SessionTaker> {
  private readonly takers = new Map<string, Set<Taker>>();

  /** `taker` has addresses queued at `target` for work of `share`. */
  offer(share: string, target: SessionTarget, taker: Taker): void {
    const key = keyOf(share, target);
    const set = this.takers.get(key) ?? new Set();
    set.add(taker);
    this.takers.set(key, set);
  }

  /** `taker` has nothing queued at `target` any more (so a long-lived verifier keeps no done domains). */
  withdraw(share: string, target: SessionTarget, taker: Taker): void {
    const key = keyOf(share, target);
    const set = this.takers.get(key);
    if (set?.delete(taker) && set.size === 0) this.takers.delete(key);
  }

  /** Who should go on in a session at `target` that `giver` is done with, if anyone. */
  takerFor(share: string, target: SessionTarget, giver: Taker): Taker | undefined {
    const key = keyOf(share, target);
    const set = this.takers.get(key);
    if (!set) return undefined;
    let best: Taker | undefined;
    for (const taker of set) {
      if (taker === giver) continue;
      if (!taker.wantsSessionAt(target)) set.delete(taker);
      else if (!best || taker.sessions < best.sessions) best = taker;
    }
    if (set.size === 0) this.takers.delete(key);
    return best;
  }
}

function keyOf(share: string, { hostname, address }: SessionTarget): string {
  return `${share}\n${hostname}\n${address}`;
}
