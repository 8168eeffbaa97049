/**
 * What sessions teach about each MX host (by address), for one verifier's life: how fast it
 * answers a RCPT, how many recipients it takes in one transaction, how many refused RCPTs it
 * takes in one session before it slows us down or hangs up, and whether it took postmaster from us.
 *
 * Refusals: Postfix, the most common MTA, delays every reply by a second once a session has made
 * 10 errors (smtpd_soft_error_limit, smtpd_error_sleep_time) and hangs up at 20
 * (smtpd_hard_error_limit); an Exim ACL may delay or drop after a few failed recipients. Up to
 * SAFE_REFUSALS is safe at a host running Postfix's defaults. Beyond that a session goes on only
 * while the host answers as fast as it did: many hosts never slow down, and a domain with many
 * unknown mailboxes, or behind a greylist, would otherwise pay a new greeting, EHLO and MAIL FROM
 * every nine refusals. The first slow reply, time-out or hang-up beyond it teaches the host's own
 * limit, and every later session there stops before it (docs/architecture.md, "SMTP sessions").
 */

export const SAFE_REFUSALS = 9;
/** RFC 5321 §4.5.3.1.8: every server takes at least 100 recipients per transaction. */
const RCPTS_PER_TRANSACTION = 100;
/** A reply this many times slower than the session's usual ones… */
const SLOWDOWN_FACTOR = 4;
/** …and at least this much slower is the host slowing us down, not noise. */
const SLOWDOWN_MARGIN_MS = 250;
/** Weight of the newest reply in a host's typical reply time. */
const REPLY_TIME_WEIGHT = 0.2;
/** Hosts remembered; the oldest are forgotten first (one session teaches them again). */
const HOSTS_KEPT = 10_000;

/**
 * What a host answered for `postmaster@<domain>` (RFC 5321 §4.5.1: every domain takes it) after a
 * refusal no reply row reads: `refused`, its refusals are about us; `accepted`, about the addresses.
 */
export interface PostmasterAnswer {
  accepted: boolean;
  /** The domain it was asked for and the reply, for the reason of the results that reuse it. */
  domain: string;
  line: string;
}

interface Habits {
  refusalLimit: number;
  rcptsPerTransaction: number;
  replyMs?: number;
}

/** Sets `key` in `map`, forgetting the oldest entry beyond HOSTS_KEPT. */
function keep<V>(map: Map<string, V>, key: string, value: V): V {
  map.set(key, value);
  if (map.size > HOSTS_KEPT) map.delete(map.keys().next().value!);
  return value;
}

export class HostHabits {
  private readonly hosts = new Map<string, Habits>();
  /** Conclusive postmaster answers, by host and egress (a key of their own: not a host's habits). */
  private readonly postmaster = new Map<string, PostmasterAnswer>();
  /** Postmaster controls in flight, by host address (see askPostmaster). */
  private readonly asking = new Map<string, Promise<PostmasterAnswer | null>>();

  /** Refusals after which a session at `address` ends: what the host taught, else no limit. */
  refusalLimit(address: string): number {
    return this.hosts.get(address)?.refusalLimit ?? Infinity;
  }

  /** The host slowed down or hung up after `refusals`: the next sessions stop one before. */
  learnRefusalLimit(address: string, refusals: number): void {
    const habits = this.habitsOf(address);
    habits.refusalLimit = Math.min(habits.refusalLimit, Math.max(SAFE_REFUSALS, refusals - 1));
  }

  /**
   * Recipients to ask per transaction: what RFC 5321 promises, less once the host has said "too
   * many recipients" (the address it refused is asked again in a new transaction; knowing the
   * limit keeps that from happening at every transaction after, whichever domain's they are).
   */
  rcptsPerTransaction(address: string): number {
    return this.hosts.get(address)?.rcptsPerTransaction ?? RCPTS_PER_TRANSACTION;
  }

  learnRcptsPerTransaction(address: string, accepted: number): void {
    const habits = this.habitsOf(address);
    habits.rcptsPerTransaction = Math.min(habits.rcptsPerTransaction, Math.max(1, accepted));
  }

  /** The host's typical RCPT reply time in ms, or undefined before its first answer. */
  replyMs(address: string): number | undefined {
    return this.hosts.get(address)?.replyMs;
  }

  recordReply(address: string, ms: number): void {
    const habits = this.habitsOf(address);
    habits.replyMs = habits.replyMs === undefined ? ms : habits.replyMs + REPLY_TIME_WEIGHT * (ms - habits.replyMs);
  }

  /**
   * The postmaster control's answer at `at`, once one was conclusive (docs/architecture.md "What a
   * reply means"). `at` is the host's address with the egress asking (the prober's key): the answer
   * is about our egress as much as about the host, and another egress may get another.
   */
  postmasterAnswer(at: string): PostmasterAnswer | undefined {
    return this.postmaster.get(at);
  }

  /** The control another session is asking at `at` now (null if it gets no conclusive answer), if any. */
  postmasterAsking(at: string): Promise<PostmasterAnswer | null> | undefined {
    return this.asking.get(at);
  }

  /**
   * Runs `ask` as the one postmaster control in flight at `at` (sessions meeting an unreadable
   * refusal meanwhile wait for it, so a host is asked once per run and egress), and learns its
   * conclusive answer.
   */
  async askPostmaster(at: string, ask: () => Promise<PostmasterAnswer | null>): Promise<PostmasterAnswer | null> {
    const asked = ask();
    const shared = asked.catch(() => null);
    this.asking.set(at, shared);
    void shared.finally(() => this.asking.delete(at));
    const answer = await asked;
    if (answer) keep(this.postmaster, at, answer);
    return answer;
  }

  private habitsOf(address: string): Habits {
    return this.hosts.get(address) ?? keep(this.hosts, address, { refusalLimit: Infinity, rcptsPerTransaction: RCPTS_PER_TRANSACTION });
  }
}

/** The pace of one session's RCPT replies while its refusals are within SAFE_REFUSALS. */
export class SessionPace {
  private count = 0;
  private totalMs = 0;

  /** Records a reply that took `ms`; whether it is a slowdown (only once past the safe refusals). */
  slowedDown(ms: number, refusals: number): boolean {
    if (refusals < SAFE_REFUSALS || this.count === 0) {
      this.count += 1;
      this.totalMs += ms;
      return false;
    }
    return ms > SLOWDOWN_FACTOR * (this.totalMs / this.count) + SLOWDOWN_MARGIN_MS;
  }
}
