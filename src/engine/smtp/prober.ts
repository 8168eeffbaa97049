import { outcomeOfFailure, outcomeOfReply, unknownOutcome, type SmtpOutcome } from './outcome.js';
import type { MatchedRule } from '../rules/provider-rules.js';
import type { SmtpObserver } from '../core/types.js';
import { SmtpError } from './errors.js';
import { SAFE_REFUSALS, SessionPace, type HostHabits, type PostmasterAnswer } from './host-habits.js';
import { CONTROLLED_KIND, controlledOutcome, domainOf, postmasterAnswerOf, postmasterAt } from './postmaster-control.js';
import { replyKind, type ReplyKind } from './reply-table.js';
import type { SmtpReply } from './reply.js';
import { SmtpSession, type SessionOptions, type SessionTarget } from './session.js';
import type { SessionSharing, SessionTaker } from './session-sharing.js';

/** Addresses per extra session: below that, opening one costs more round trips than it saves. */
const RCPTS_PER_SESSION = 5;
const SERVICE_CLOSING = 421;
/** How often an address may be cut off mid-question before it is given up as unknown. */
const MAX_DROPS_PER_ADDRESS = 3;

/** Every egress is benched at a host's provider: its addresses are not asked there (thrown by `takeSlot`). */
export class EgressesBenched extends Error {
  override name = 'EgressesBenched';
  constructor(readonly outcome: SmtpOutcome) {
    super(outcome.reason);
  }
}

export interface ProbeAnswer {
  outcome: SmtpOutcome;
  /** What the RCPT reply meant, or null when there was no reply. */
  kind: ReplyKind | null;
}

export interface ProbeRequest {
  /** The RCPT TO address: `local@ascii-domain`. */
  address: string;
  /** Called exactly once, synchronously inside the session: asking more from here keeps it open. */
  answer(result: ProbeAnswer): void;
  /** True once the caller no longer wants the answer: the address is then answered unasked. */
  cancelled?(): boolean;
}

/** A session's place within the per-host and global limits, at one egress (docs/architecture.md "Egress"). */
export interface SessionSlot {
  /** How the session in this slot is opened: through the slot's egress. */
  session: SessionOptions;
  /**
   * The host refused the slot's egress for reputation (`refusal`, the answer for an address at
   * `domain`): 'elsewhere' when another egress is left to ask the address through, else the
   * address's answer. The bench is for `domain`, whichever domain the slot was taken for.
   */
  refused(refusal: SmtpOutcome, domain: string): Promise<SmtpOutcome | 'elsewhere'>;
  /** Gives the slot back (once). */
  release(): void;
  /** Someone with a better claim waits for this slot (`left` addresses to ask): end the session after the current answer. */
  wanted(left: number): boolean;
  /** Another session could start at this host now without keeping anyone waiting (a slot nobody wants). */
  spare(): boolean;
  /** Calls `listener` once, when a slot at this host is next given back with nobody waiting for it. */
  onSpare(listener: () => void): void;
}

export interface ProberOptions {
  /** The domain whose addresses this prober asks: what a refusal of our egress is kept for. */
  domain: string;
  perHostConcurrency: number;
  /**
   * Waits for a session slot at a host (its own limit, then the global one), for `pending`
   * addresses; throws EgressesBenched when every egress is benched at the host's provider.
   */
  takeSlot(target: SessionTarget, pending: number): Promise<SessionSlot>;
  /** The provider rule of an MX host, if one matches: RCPTs per session, what a 250 proves. */
  ruleOf(hostname: string): MatchedRule | undefined;
  /** What sessions taught about each host: its reply time, the refusals it takes in a session. */
  habits: HostHabits;
  /** Where a session done with this domain finds another domain at the same host, with the same `sharingKey`. */
  sharing: SessionSharing<SmtpProber>;
  /** Whose sessions this domain's may be: one share (user) at one priority. */
  sharingKey: string;
  observer?: SmtpObserver;
}

interface Pending extends ProbeRequest {
  drops: number;
  /** Its refusal at a host (by address), asked already, that waits for the postmaster control there (its session had no RCPT left for it). */
  refusal?: { reply: SmtpReply; host: string };
}

/** The postmaster control's verdict on one refusal, or why there is none yet. */
type Controlled = ProbeAnswer | { unasked: 'no-rcpt-left' } | { dropped: SmtpError; answer: ProbeAnswer };

/** A session (and its slot) taken over from another domain at the same host, to go on with. */
interface Borrowed {
  live: LiveSession;
  target: SessionTarget;
  slot: SessionSlot;
}

/** An open session and what it has asked: refusals and RCPTs count per session, whichever domains they were for. */
interface LiveSession {
  session: SmtpSession;
  pace: SessionPace;
  refusals: number;
  rcpts: number;
  replies: number;
  inTransaction: number;
  /** Domains whose postmaster this session asked already: at most one control RCPT per domain per session. */
  postmasterAsked: Set<string>;
}

/** Whether an address needs SMTPUTF8 (RFC 6531) to be asked about. */
const isAscii = (text: string): boolean => [...text].every((char) => char.charCodeAt(0) < 0x80);

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
    private readonly options: ProberOptions,
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
  private startWorker(slot?: SessionSlot): void {
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

  private pending(): number {
    return this.queue.length + this.announced;
  }

  private hasWork(): boolean {
    return this.queue.length > 0 || this.gate !== null;
  }

  /** The next address to ask, waiting for announced ones when the queue is empty; cancelled ones are answered unasked. */
  private async next(): Promise<Pending | undefined> {
    if (this.queue.length === 0 && this.gate) await this.gate;
    this.answerCancelled();
    const item = this.queue.shift();
    if (this.queue.length === 0) this.withdrawFromSessions();
    return item;
  }

  /** An address to ask again: first in line, and offered to sessions at the host again. */
  private putBack(item: Pending): void {
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
      ended = await this.askQueued(live, target, slot);
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

  /**
   * The RCPTs of one domain in `live`: false when its queue is done, else why the session ends
   * (`spent`, or `dropped` when the connection is gone).
   */
  private async askQueued(live: LiveSession, target: SessionTarget, slot: SessionSlot): Promise<false | 'spent' | 'dropped'> {
    const { session } = live;
    const rule = this.options.ruleOf(target.hostname);
    const rcptLimit = rule?.rcptsPerSession ?? Infinity;
    const { habits } = this.options;
    const refusalLimit = habits.refusalLimit(target.address);
    for (let item = await this.next(); item; item = await this.next()) {
      if (live.rcpts >= rcptLimit) {
        this.putBack(item);
        return 'spent';
      }
      if (!isAscii(item.address) && !session.smtpUtf8) {
        item.answer({ outcome: unknownOutcome('the server does not take internationalised addresses (no SMTPUTF8)', 'smtputf8_unsupported'), kind: null });
        continue;
      }
      try {
        const refusalsBefore = live.refusals;
        const asked = await this.rcpt(live, target, item);
        if (!asked) continue;
        const { reply, kind, slowedDown } = asked;
        const controlled: Controlled =
          kind === CONTROLLED_KIND
            ? await this.controlled(live, target, slot, rule, item.address, reply)
            : { outcome: weighed(outcomeOfReply(reply, kind), target, rule), kind };
        if ('unasked' in controlled) {
          item.refusal = { reply, host: target.address };
          this.putBack(item);
          return 'spent';
        }
        let answer = 'dropped' in controlled ? controlled.answer : controlled;
        this.options.observer?.rcptAnswered(target.hostname, answer.outcome.status, answer.outcome.code, slot.session.egress ?? 'default');
        if (isAboutOurEgress(answer.outcome, kind)) {
          const routed = await slot.refused(answer.outcome, this.options.domain);
          if (routed === 'elsewhere') {
            // Asked again through another egress; this one is benched at the provider, so is its session.
            this.putBack(item);
            if ('dropped' in controlled) session.abort();
            return 'dropped' in controlled ? 'dropped' : 'spent';
          }
          answer = { ...answer, outcome: routed };
        }
        item.answer(answer);
        if ('dropped' in controlled) {
          session.abort();
          if (controlled.dropped.kind === 'timeout') this.giveUpOn(target, controlled.dropped);
          return 'dropped';
        }
        if (slowedDown) {
          // Its answer stands; every further reply (QUIT's too) would come as slowly.
          habits.learnRefusalLimit(target.address, refusalsBefore);
          session.abort();
          return 'dropped';
        }
        if (live.refusals >= refusalLimit) return 'spent';
        if (slot.wanted(this.pending())) return 'spent';
        // Slots freed meanwhile (the host's other domains are done) take a share of what is left.
        this.startWorker(slot);
      } catch (error) {
        session.abort();
        if (error instanceof SmtpError && live.refusals >= SAFE_REFUSALS && (error.kind === 'closed' || error.kind === 'timeout')) {
          this.cutOffAfterRefusals(item, target, live.refusals);
        } else if (error instanceof SmtpError) {
          this.lost(item, error, target, live.replies === 0);
        } else {
          item.answer({ outcome: unknownOutcome(`internal error: ${(error as Error).message}`, 'internal_error'), kind: null });
          throw error;
        }
        return 'dropped';
      }
    }
    return false;
  }

  /**
   * Asks the host about one address in `live`: its reply, how the reply table reads it, and whether
   * the host slowed down answering. Undefined when the address is not asked now: given up while a
   * new transaction opened, or put back because the host takes fewer recipients per transaction.
   */
  private async rcpt(live: LiveSession, target: SessionTarget, item: Pending): Promise<{ reply: SmtpReply; kind: ReplyKind; slowedDown: boolean } | undefined> {
    // Refused in an earlier session here that had no RCPT left for the control: only the control is asked.
    if (item.refusal?.host === target.address) return { reply: item.refusal.reply, kind: CONTROLLED_KIND, slowedDown: false };
    const { habits } = this.options;
    if (live.inTransaction >= habits.rcptsPerTransaction(target.address)) {
      await this.newTransaction(live);
      // A new transaction is a round trip or two: the caller may have given the address up meanwhile.
      if (item.cancelled?.()) {
        answerUnasked(item);
        return undefined;
      }
    }
    live.rcpts += 1;
    const asked = performance.now();
    const reply = await live.session.rcpt(item.address);
    const replyMs = performance.now() - asked;
    habits.recordReply(target.address, replyMs);
    const slowedDown = live.pace.slowedDown(replyMs, live.refusals);
    live.replies += 1;
    throwIfClosing(reply);
    live.inTransaction += 1;
    const kind = replyKind(reply);
    if (kind === 'too-many-recipients' && live.inTransaction > 1) {
      this.putBack(item);
      habits.learnRcptsPerTransaction(target.address, live.inTransaction - 1);
      live.inTransaction = Infinity;
      return undefined;
    }
    if (reply.code >= 400) live.refusals += 1;
    return { reply, kind, slowedDown };
  }

  /** RSET and MAIL FROM again, when the transaction holds as many recipients as the host takes. */
  private async newTransaction(live: LiveSession): Promise<void> {
    live.inTransaction = 0;
    await live.session.newTransaction();
  }

  /**
   * The postmaster control for an unreadable refusal of `address` (postmaster-control.ts): the
   * host's answer learnt earlier (any domain, any session), else `postmaster@domain` asked in
   * this session, once per domain, within the session's RCPTs; not where a provider rule says
   * postmaster proves nothing. A session that dies on the question answers with the table's reading.
   * The answer is learnt per egress at the host: a refusal of one egress says nothing of another's.
   */
  private async controlled(
    live: LiveSession,
    target: SessionTarget,
    slot: SessionSlot,
    rule: MatchedRule | undefined,
    address: string,
    refusal: SmtpReply,
  ): Promise<Controlled> {
    const { habits } = this.options;
    const domain = domainOf(address);
    const read = (answer: PostmasterAnswer | null): ProbeAnswer => controlledOutcome(refusal, answer, domain, target.hostname);
    if (rule?.postmasterProvesSender === false) return read(null);
    const at = `${slot.session.egress ?? 'default'}\n${target.address}`;
    const known = habits.postmasterAnswer(at);
    if (known) return read(known);
    const asking = habits.postmasterAsking(at);
    if (asking) return read(await asking);
    if (live.postmasterAsked.has(domain)) return read(null);
    if (live.rcpts >= (rule?.rcptsPerSession ?? Infinity)) return { unasked: 'no-rcpt-left' };
    live.postmasterAsked.add(domain);
    try {
      return read(await habits.askPostmaster(at, () => this.askPostmaster(live, target, domain)));
    } catch (error) {
      if (!(error instanceof SmtpError)) throw error;
      return { dropped: error, answer: read(null) };
    }
  }

  /** `RCPT TO:<postmaster@domain>` in `live`, counted like any RCPT; what its reply teaches, if anything. */
  private async askPostmaster(live: LiveSession, target: SessionTarget, domain: string): Promise<PostmasterAnswer | null> {
    const { habits } = this.options;
    if (live.inTransaction >= habits.rcptsPerTransaction(target.address)) await this.newTransaction(live);
    live.rcpts += 1;
    const reply = await live.session.rcpt(postmasterAt(domain));
    live.replies += 1;
    throwIfClosing(reply);
    live.inTransaction += 1;
    if (reply.code >= 400) live.refusals += 1;
    // "Too many recipients" answers nothing about us: the next RCPT opens a new transaction.
    if (replyKind(reply) === 'too-many-recipients') {
      live.inTransaction = Infinity;
      return null;
    }
    return postmasterAnswerOf(reply, domain);
  }

  /**
   * The session died while `item` was being asked. A host that stops answering mid-list would
   * cost a timeout per address, and one that said 421 has answered (asking again at once would
   * send the same RCPT twice): either way that is the address's answer, and the next addresses
   * go to the next host. A connection cut without a word answered nothing: the address is asked
   * again, at the next host when this one cut the session before answering anything (`silent`),
   * as if it had refused the connection; asking it again would cost a connection per address.
   */
  private lost(item: Pending, error: SmtpError, target: SessionTarget, silent: boolean): void {
    if (error.kind === 'timeout' || error.reply) {
      item.answer({ outcome: outcomeOfFailure(error, target), kind: null });
      this.giveUpOn(target, error);
    } else if (silent) {
      this.putBack(item);
      this.giveUpOn(target, error);
    } else if (++item.drops >= MAX_DROPS_PER_ADDRESS) {
      item.answer({ outcome: outcomeOfFailure(error, target), kind: null });
    } else {
      this.putBack(item);
    }
  }

  /**
   * The host hung up or went silent once the session had more refusals than every host takes: it
   * limits them. That is about the session, not the address nor the host: the address is asked
   * again in a new session, which stops before the limit now learnt.
   */
  private cutOffAfterRefusals(item: Pending, target: SessionTarget, refusals: number): void {
    this.options.habits.learnRefusalLimit(target.address, refusals);
    this.putBack(item);
  }

  private giveUpOn(target: SessionTarget, error: SmtpError): void {
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

/**
 * A refusal of our egress rather than of the address, which another egress may not get: a block of
 * our IP address or name (`ip_blocked`), or a refusal the postmaster control found to be about us.
 */
function isAboutOurEgress(outcome: SmtpOutcome, kind: ReplyKind): boolean {
  return outcome.code === 'ip_blocked' || (kind === CONTROLLED_KIND && outcome.code === 'sender_refused');
}

/**
 * A 250 from a host whose provider rule says acceptance proves nothing (it takes every RCPT) keeps
 * its `valid` status, the server's words, and says why it is no proof; classify() reads that. The rule
 * is named by its suffix, not its `source`: a result's reason stays one short line in a CSV cell.
 */
function weighed(outcome: SmtpOutcome, target: SessionTarget, rule: MatchedRule | undefined): SmtpOutcome {
  if (outcome.status !== 'valid' || rule?.acceptProvesMailbox !== false) return outcome;
  return { ...outcome, unproven: `${target.hostname} accepts every address at RCPT TO (provider rule ${rule.suffix})` };
}

/** 421 closes the session (RFC 5321 §3.8): it is about the session, not the mailbox. */
function throwIfClosing(reply: SmtpReply): void {
  if (reply.code === SERVICE_CLOSING) throw new SmtpError('closed', `the server closed the session: ${reply.line}`, reply);
}

/** An address whose caller no longer wants the answer (its chunk was lost or stopped): never sent to the host. */
function answerUnasked(item: Pending): void {
  item.answer({ outcome: unknownOutcome('not asked: the caller no longer wants the answer', 'internal_error'), kind: null });
}
