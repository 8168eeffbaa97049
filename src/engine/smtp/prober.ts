import { outcomeOfFailure, outcomeOfReply, unknownOutcome, type SmtpOutcome } from '../checks/smtp-status.js';
import type { MatchedRule } from '../rules/provider-rules.js';
import type { SmtpObserver } from '../types.js';
import { SmtpError } from './errors.js';
import { replyKind, type ReplyKind } from './reply-table.js';
import { SmtpSession, type SessionOptions, type SessionTarget } from './session.js';

/** Addresses per extra session: below that, opening one costs more round trips than it saves. */
const RCPTS_PER_SESSION = 5;
/** RFC 5321 §4.5.3.1.8: every server takes at least 100 recipients per transaction. */
const MAX_RCPTS_PER_TRANSACTION = 100;
/**
 * Postfix slows every reply by a second after 10 errors in a session (smtpd_soft_error_limit) and
 * hangs up after 20: a fresh session before that is far cheaper.
 */
const MAX_REFUSALS_PER_SESSION = 9;
const SERVICE_CLOSING = 421;
/** How often an address may be cut off mid-question before it is given up as unknown. */
const MAX_DROPS_PER_ADDRESS = 3;

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

/** A session's place within the per-host and global limits. */
export interface SessionSlot {
  /** Gives the slot back (once). */
  release(): void;
  /** Someone with a higher priority waits for this slot: end the session after the current answer. */
  wanted(): boolean;
}

export interface ProberOptions {
  /** How to open a session at a host (its rule may name a proxy). */
  sessionFor(target: SessionTarget): SessionOptions;
  perHostConcurrency: number;
  /** Waits for a session slot at a host (its own limit, then the global one). */
  takeSlot(target: SessionTarget): Promise<SessionSlot>;
  /** The provider rule of an MX host, if one matches: RCPTs per session, what a 250 proves. */
  ruleOf(hostname: string): MatchedRule | undefined;
  observer?: SmtpObserver;
}

interface Pending extends ProbeRequest {
  drops: number;
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
 * cannot be reached or stops answering), a new session when the server hangs up on us.
 */
export class SmtpProber {
  private readonly queue: Pending[] = [];
  private targetIndex = 0;
  private lastFailure: SmtpOutcome | null = null;
  private workers = 0;
  /**
   * Recipients asked per transaction: at most what RFC 5321 promises, less once the server has
   * said "too many recipients" (the one address it refused is asked again in a new transaction;
   * knowing the limit keeps that from happening at every transaction after).
   */
  private rcptsPerTransaction = MAX_RCPTS_PER_TRANSACTION;
  /** Settles when announced addresses have been asked (see `expect`). */
  private gate: Promise<void> | null = null;

  constructor(
    private readonly targets: readonly SessionTarget[],
    private readonly options: ProberOptions,
  ) {}

  ask(requests: readonly ProbeRequest[]): void {
    this.queue.push(...requests.map((request) => ({ ...request, answer: once(request.answer), drops: 0 })));
    this.startWorkers(this.queue.length);
  }

  /**
   * Announces `count` more addresses, to be asked once `asked` settles (after the catch-all
   * probe): their sessions open now, alongside the probe's, and wait for them.
   */
  expect(count: number, asked: Promise<void>): void {
    this.gate = asked;
    void asked.then(() => {
      if (this.gate === asked) this.gate = null;
    });
    this.startWorkers(this.queue.length + count);
  }

  private startWorkers(addresses: number): void {
    const wanted = Math.min(this.options.perHostConcurrency, Math.ceil(addresses / RCPTS_PER_SESSION));
    while (this.workers < wanted) {
      this.workers += 1;
      void this.work().finally(() => (this.workers -= 1));
    }
  }

  private hasWork(): boolean {
    return this.queue.length > 0 || this.gate !== null;
  }

  /** The next address to ask, waiting for announced ones when the queue is empty; cancelled ones are answered unasked. */
  private async next(): Promise<Pending | undefined> {
    if (this.queue.length === 0 && this.gate) await this.gate;
    this.answerCancelled();
    return this.queue.shift();
  }

  private answerCancelled(): void {
    const cancelled = this.queue.filter((item) => item.cancelled?.());
    if (cancelled.length === 0) return;
    this.queue.splice(0, this.queue.length, ...this.queue.filter((item) => !cancelled.includes(item)));
    for (const item of cancelled) answerUnasked(item);
  }

  private async work(): Promise<void> {
    try {
      while (this.hasWork()) {
        const target = this.targets[this.targetIndex];
        if (!target) return this.answerAll(this.lastFailure ?? unknownOutcome('no mail host to ask', 'connection_failed'));
        const slot = await this.options.takeSlot(target);
        try {
          // While we waited, others may have emptied the queue (or it was cancelled) or given up on this host.
          this.answerCancelled();
          if (!this.hasWork() || target !== this.targets[this.targetIndex]) continue;
          const session = await this.open(target);
          if (session) await this.watched(target, () => this.drain(session, target, slot));
        } finally {
          slot.release();
        }
      }
    } catch (error) {
      // A bug, not a network problem: the addresses still get an answer, and the cause is named.
      this.answerAll(unknownOutcome(`internal error: ${(error as Error).message}`, 'internal_error'));
    }
  }

  /** A session's life, told to the observer (if any). */
  private async watched(target: SessionTarget, drain: () => Promise<void>): Promise<void> {
    this.options.observer?.sessionOpened(target.hostname);
    try {
      await drain();
    } finally {
      this.options.observer?.sessionClosed(target.hostname);
    }
  }

  private async open(target: SessionTarget): Promise<SmtpSession | null> {
    try {
      return await SmtpSession.open(target, this.options.sessionFor(target));
    } catch (error) {
      if (!(error instanceof SmtpError)) throw error;
      this.giveUpOn(target, error);
      return null;
    }
  }

  /**
   * Asks queued addresses in one session until the queue is empty, the session is spent (refusals,
   * or the RCPTs its provider rule allows) or its slot is wanted by an interactive probe (this
   * worker then queues for a slot again).
   */
  private async drain(session: SmtpSession, target: SessionTarget, slot: SessionSlot): Promise<void> {
    const rule = this.options.ruleOf(target.hostname);
    const rcptLimit = rule?.rcptsPerSession ?? Infinity;
    let inTransaction = 0;
    let refusals = 0;
    let replies = 0;
    let rcpts = 0;
    for (let item = await this.next(); item; item = rcpts < rcptLimit ? await this.next() : undefined) {
      if (!isAscii(item.address) && !session.smtpUtf8) {
        item.answer({ outcome: unknownOutcome('the server does not take internationalised addresses (no SMTPUTF8)', 'smtputf8_unsupported'), kind: null });
        continue;
      }
      try {
        if (inTransaction >= this.rcptsPerTransaction) {
          inTransaction = 0;
          await session.newTransaction();
          // A new transaction is a round trip or two: the caller may have given the address up meanwhile.
          if (item.cancelled?.()) {
            answerUnasked(item);
            continue;
          }
        }
        rcpts += 1;
        const reply = await session.rcpt(item.address);
        replies += 1;
        // 421 closes the session (RFC 5321 §3.8): it is about the session, not the mailbox.
        if (reply.code === SERVICE_CLOSING) throw new SmtpError('closed', `the server closed the session: ${reply.line}`, reply);
        inTransaction += 1;
        const kind = replyKind(reply);
        if (kind === 'too-many-recipients' && inTransaction > 1) {
          this.queue.unshift(item);
          this.rcptsPerTransaction = Math.min(this.rcptsPerTransaction, inTransaction - 1);
          inTransaction = this.rcptsPerTransaction;
          continue;
        }
        const outcome = weighed(outcomeOfReply(reply, kind), target, rule);
        this.options.observer?.rcptAnswered(target.hostname, outcome.status, outcome.code);
        item.answer({ outcome, kind });
        if (reply.code >= 400 && ++refusals >= MAX_REFUSALS_PER_SESSION) break;
        if (slot.wanted()) break;
      } catch (error) {
        session.abort();
        if (error instanceof SmtpError) return this.lost(item, error, target, replies === 0);
        item.answer({ outcome: unknownOutcome(`internal error: ${(error as Error).message}`, 'internal_error'), kind: null });
        throw error;
      }
    }
    await session.quit();
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
      this.queue.unshift(item);
      this.giveUpOn(target, error);
    } else if (++item.drops >= MAX_DROPS_PER_ADDRESS) {
      item.answer({ outcome: outcomeOfFailure(error, target), kind: null });
    } else {
      this.queue.unshift(item);
    }
  }

  private giveUpOn(target: SessionTarget, error: SmtpError): void {
    if (target !== this.targets[this.targetIndex]) return; // another session already moved on
    this.lastFailure = outcomeOfFailure(error, target);
    this.targetIndex += 1;
  }

  private answerAll(outcome: SmtpOutcome): void {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) item.answer({ outcome, kind: null });
  }
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

/** An address whose caller no longer wants the answer (its chunk was lost or stopped): never sent to the host. */
function answerUnasked(item: Pending): void {
  item.answer({ outcome: unknownOutcome('not asked: the caller no longer wants the answer', 'internal_error'), kind: null });
}
