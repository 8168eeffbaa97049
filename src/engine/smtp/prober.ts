import { outcomeOfFailure, unknownOutcome, type SmtpOutcome } from './outcome.js';
import { askQueued } from './domain-rcpts.js';
import { SmtpError } from './errors.js';
import { SessionPace } from './host-habits.js';
import { answerUnasked, type LiveSession, type Pending } from './live-session.js';
import { EgressesBenched, type ProbeRequest, type ProberOptions, type SessionSlot } from './probe-contract.js';
import { SmtpSession, type SessionTarget } from './session.js';
import type { SessionTaker } from './session-sharing.js';

/** Addresses per extra session: below that, opening one costs more round trips than it saves. */
const RCPTS_PER_SESSION = 5;

/** A session (and its slot) taken over from another domain at the same host, to go on with. */
interface Borrowed {
  live: LiveSession;
  target: SessionTarget;
  slot: SessionSlot;
}

function once(answer: ProbeRequest['answer']): ProbeRequest['answer'] {
  let answered = false;
  return (result) => {
    if (answered) return;
    answered = true;
    answer(result);
  };
}

/**
 * Asks one domain's mail hosts about addresses with RCPT TO: several per session, up to
 * `perHostConcurrency` sessions at once, hosts in preference order (the next one when a host
 * cannot be reached or stops answering), a new session when the server hangs up on us; a
 * session done with this domain goes on with another's at the same host (SessionSharing).
 */
export class SmtpProber implements SessionTaker {
  private readonly queue: Pending[] = [];
  /** Sessions asking this domain's addresses now. */
  sessions = 0;
  private targetIndex = 0;
  private lastFailure: SmtpOutcome | null = null;
  private workers = 0;
  /** Settles when announced addresses have been asked (see `expect`). */
  private gate: Promise<void> | null = null;
  /** How many addresses `expect` announced (counted twice from their queuing until the gate settles, briefly: harmless). */
  private announced = 0;
  /** Whether a slot at the host being given back will call startWorker (see onSpare). */
  private awaitingSpare = false;

  constructor(
    private readonly targets: readonly SessionTarget[],
    readonly options: ProberOptions,
  ) {}

  ask(requests: readonly ProbeRequest[]): void {
    this.queue.push(...requests.map((request) => ({ ...request, answer: once(request.answer), drops: 0 })));
    this.offerToSessions();
    this.startWorker();
  }

  /** Tells SessionSharing that sessions at the current host may go on with this domain's addresses. */
  private offerToSessions(): void {
    const target = this.targets[this.targetIndex];
    if (target && this.queue.length > 0) this.options.sharing.offer(this.options.sharingKey, target, this);
  }

  private withdrawFromSessions(target = this.targets[this.targetIndex]): void {
    if (target) this.options.sharing.withdraw(this.options.sharingKey, target, this);
  }

  wantsSessionAt(target: SessionTarget): boolean {
    const current = this.targets[this.targetIndex];
    if (this.queue.length === 0 || current?.hostname !== target.hostname || current.address !== target.address) return false;
    return this.sessions < this.sessionsWanted();
  }

  /** Sessions worth having for what is left: one per RCPTS_PER_SESSION addresses, within the host's limit. */
  private sessionsWanted(): number {
    return Math.min(this.options.perHostConcurrency, Math.ceil(this.pending() / RCPTS_PER_SESSION));
  }

  /**
   * Goes on in a session another domain at the same host is done with (SessionSharing): the
   * session, its counts and its slot are this prober's now, to pass on again or to close; then,
   * like any worker, it asks what is left (a cut-off address put back, say) in sessions of its own.
   */
  goOn(live: LiveSession, target: SessionTarget, slot: SessionSlot): void {
    this.addWorker({ live, target, slot });
  }

  /**
   * Announces `count` more addresses, to be asked once `asked` settles (after the catch-all
   * probe): their sessions open now, alongside the probe's, and wait for them.
   */
  expect(count: number, asked: Promise<void>): void {
    this.gate = asked;
    this.announced = count;
    void asked.then(() => {
      if (this.gate !== asked) return;
      this.gate = null;
      this.announced = 0;
    });
    this.startWorker();
  }

  /**
   * Sessions are added one at a time: the first when there is work, each next one only from a
   * session that has its slot and finds another slot at the host that nobody waits for (`spare`)
   * while there are more than RCPTS_PER_SESSION addresses left per session, at once or as soon as
   * such a slot is given back. At a busy host each domain is asked in one session (every extra one
   * costs a greeting, EHLO, MAIL FROM and QUIT of slot time others wait for); at an idle host, or
   * once its other domains are done, a domain spreads over the free slots.
   */
  startWorker(slot?: SessionSlot): void {
    if (this.workers === 0 && (this.pending() > 0 || this.gate)) return this.addWorker();
    if (!slot || this.workers === 0 || this.workers >= this.sessionsWanted()) return;
    if (slot.spare()) return this.addWorker();
    if (this.awaitingSpare) return;
    this.awaitingSpare = true;
    slot.onSpare(() => {
      this.awaitingSpare = false;
      this.startWorker(slot);
    });
  }

  private addWorker(borrowed?: Borrowed): void {
    this.workers += 1;
    void this.work(borrowed).finally(() => (this.workers -= 1));
  }

  pending(): number {
    return this.queue.length + this.announced;
  }

  private hasWork(): boolean {
    return this.queue.length > 0 || this.gate !== null;
  }

  /** The next address to ask, waiting for announced ones when the queue is empty; cancelled ones are answered unasked. */
  async next(): Promise<Pending | undefined> {
    if (this.queue.length === 0 && this.gate) await this.gate;
    this.answerCancelled();
    const item = this.queue.shift();
    if (this.queue.length === 0) this.withdrawFromSessions();
    return item;
  }

  /** An address to ask again: first in line, and offered to sessions at the host again. */
  putBack(item: Pending): void {
    this.queue.unshift(item);
    this.offerToSessions();
  }

  private answerCancelled(): void {
    const cancelled = this.queue.filter((item) => item.cancelled?.());
    if (cancelled.length === 0) return;
    this.queue.splice(0, this.queue.length, ...this.queue.filter((item) => !cancelled.includes(item)));
    if (this.queue.length === 0) this.withdrawFromSessions();
    for (const item of cancelled) answerUnasked(item);
  }

  private async work(borrowed?: Borrowed): Promise<void> {
    await this.guarded(async () => {
      if (borrowed) await this.holding(borrowed.slot, () => this.drain(borrowed.live, borrowed.target, borrowed.slot));
      while (this.hasWork()) {
        const target = this.targets[this.targetIndex];
        if (!target) return this.answerAll(this.lastFailure ?? unknownOutcome('no mail host to ask', 'connection_failed'));
        const slot = await this.options.takeSlot(target, this.pending()).catch((error: unknown) => {
          if (error instanceof EgressesBenched) return this.moveOn(target, error.outcome);
          throw error;
        });
        if (!slot) continue;
        await this.holding(slot, async () => {
          // While we waited, others may have emptied the queue (or it was cancelled) or given up on this host.
          this.answerCancelled();
          if (!this.hasWork() || target !== this.targets[this.targetIndex]) return false;
          this.startWorker(slot);
          const session = await this.open(target, slot);
          return session
            ? this.drain({ session, pace: new SessionPace(), refusals: 0, rcpts: 0, replies: 0, inTransaction: 0, postmasterAsked: new Set() }, target, slot)
            : false;
        });
      }
    });
  }

  /** Runs `use` with `slot`, then gives the slot back unless `use` passed it on (with its session). */
  private async holding(slot: SessionSlot, use: () => Promise<boolean>): Promise<void> {
    let passedOn = false;
    try {
      passedOn = await use();
    } finally {
      if (!passedOn) slot.release();
    }
  }

  /** A bug, not a network problem: the addresses still get an answer, and the cause is named. */
  private async guarded(run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.answerAll(unknownOutcome(`internal error: ${(error as Error).message}`, 'internal_error'));
    }
  }

  /**
   * A session at `target` through the slot's egress, or null when none could be opened: the host is
   * given up, unless it refused the egress for reputation before RCPT (at the greeting, EHLO or MAIL)
   * and another egress is left, through which the loop asks again.
   */
  private async open(target: SessionTarget, slot: SessionSlot): Promise<SmtpSession | null> {
    try {
      const session = await SmtpSession.open(target, slot.session);
      this.options.observer?.sessionOpened(target.hostname);
      return session;
    } catch (error) {
      if (!(error instanceof SmtpError)) throw error;
      const outcome = outcomeOfFailure(error, target);
      if (error.kind === 'refused') this.options.observer?.sessionRefused?.(target.hostname, outcome.code, slot.session.egress ?? 'default');
      const routed = outcome.code === 'ip_blocked' ? await slot.refused(outcome, this.options.domain) : outcome;
      if (routed !== 'elsewhere') this.moveOn(target, routed);
      return null;
    }
  }

  /**
   * Asks queued addresses in one session until the queue is empty, the session is spent (the
   * refusals the host takes, or the RCPTs its provider rule allows) or its slot is wanted (by an
   * interactive probe, a share or host holding fewer slots, a far heavier claim: this worker then
   * queues for a slot again). A session done with this domain, not spent and not wanted, goes on
   * with another domain's addresses at the same host if one has some: then it answers true (the
   * session and the slot are the other domain's now).
   */
  private async drain(live: LiveSession, target: SessionTarget, slot: SessionSlot): Promise<boolean> {
    let ended: false | 'spent' | 'dropped';
    this.sessions += 1;
    try {
      ended = await askQueued(this, live, target, slot);
    } catch (error) {
      live.session.abort();
      this.options.observer?.sessionClosed(target.hostname);
      throw error;
    } finally {
      this.sessions -= 1;
    }
    if (ended === false && slot.wanted(0)) ended = 'spent';
    const taker = ended ? undefined : this.options.sharing.takerFor(this.options.sharingKey, target, this);
    if (taker) {
      void taker.goOn(live, target, slot);
      return true;
    }
    try {
      if (ended !== 'dropped') await live.session.quit();
    } finally {
      this.options.observer?.sessionClosed(target.hostname);
    }
    return false;
  }

  giveUpOn(target: SessionTarget, error: SmtpError): void {
    this.moveOn(target, outcomeOfFailure(error, target));
  }

  /** The next host is asked from now on; `outcome` answers the addresses left should none be. */
  private moveOn(target: SessionTarget, outcome: SmtpOutcome): undefined {
    if (target !== this.targets[this.targetIndex]) return; // another session already moved on
    this.lastFailure = outcome;
    this.withdrawFromSessions(target);
    this.targetIndex += 1;
    this.offerToSessions();
  }

  private answerAll(outcome: SmtpOutcome): void {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) item.answer({ outcome, kind: null });
    this.withdrawFromSessions();
  }
}
