import type { MatchedRule } from '../rules/provider-rules.js';
import { SmtpError } from './errors.js';
import { SAFE_REFUSALS } from './host-habits.js';
import { askControlled, askRcpt, type Controlled, type LiveSession, type Pending } from './live-session.js';
import { CONTROLLED_KIND } from './postmaster-control.js';
import { outcomeOfFailure, outcomeOfReply, unknownOutcome, type SmtpOutcome } from './outcome.js';
import type { ProberOptions, SessionSlot } from './probe-contract.js';
import type { ReplyKind } from './reply-table.js';
import type { SessionTarget } from './session.js';

/** What asking a domain's queue in a session needs of its prober (SmtpProber): its queue, and what it does when a host fails. */
export interface DomainQueue {
  readonly options: Pick<ProberOptions, 'domain' | 'ruleOf' | 'habits' | 'observer'>;
  next(): Promise<Pending | undefined>;
  putBack(item: Pending): void;
  pending(): number;
  startWorker(slot: SessionSlot): void;
  giveUpOn(target: SessionTarget, error: SmtpError): void;
}

/** How often an address may be cut off mid-question before it is given up as unknown. */
const MAX_DROPS_PER_ADDRESS = 3;

/** Whether an address needs SMTPUTF8 (RFC 6531) to be asked about. */
const isAscii = (text: string): boolean => [...text].every((char) => char.charCodeAt(0) < 0x80);

/**
 * The RCPTs of one domain in `live`: false when its queue is done, else why the session ends
 * (`spent`, or `dropped` when the connection is gone).
 */
export async function askQueued(prober: DomainQueue, live: LiveSession, target: SessionTarget, slot: SessionSlot): Promise<false | 'spent' | 'dropped'> {
  const { session } = live;
  const rule = prober.options.ruleOf(target.hostname);
  const rcptLimit = rule?.rcptsPerSession ?? Infinity;
  const { habits } = prober.options;
  const refusalLimit = habits.refusalLimit(target.address);
  for (let item = await prober.next(); item; item = await prober.next()) {
    if (live.rcpts >= rcptLimit) {
      prober.putBack(item);
      return 'spent';
    }
    if (!isAscii(item.address) && !session.smtpUtf8) {
      item.answer({ outcome: unknownOutcome('the server does not take internationalised addresses (no SMTPUTF8)', 'smtputf8_unsupported'), kind: null });
      continue;
    }
    try {
      const refusalsBefore = live.refusals;
      const asked = await askRcpt(habits, live, target, item, (again) => prober.putBack(again));
      if (!asked) continue;
      const { reply, kind, slowedDown } = asked;
      const controlled: Controlled =
        kind === CONTROLLED_KIND
          ? await askControlled(habits, live, target, slot, rule, item.address, reply)
          : { outcome: weighed(outcomeOfReply(reply, kind), target, rule), kind };
      if ('unasked' in controlled) {
        item.refusal = { reply, host: target.address };
        prober.putBack(item);
        return 'spent';
      }
      let answer = 'dropped' in controlled ? controlled.answer : controlled;
      prober.options.observer?.rcptAnswered(target.hostname, answer.outcome.status, answer.outcome.code, slot.session.egress ?? 'default');
      if (isAboutOurEgress(answer.outcome, kind)) {
        const routed = await slot.refused(answer.outcome, prober.options.domain);
        if (routed === 'elsewhere') {
          // Asked again through another egress; this one is benched at the provider, so is its session.
          prober.putBack(item);
          if ('dropped' in controlled) session.abort();
          return 'dropped' in controlled ? 'dropped' : 'spent';
        }
        answer = { ...answer, outcome: routed };
      }
      item.answer(answer);
      if ('dropped' in controlled) {
        session.abort();
        if (controlled.dropped.kind === 'timeout') prober.giveUpOn(target, controlled.dropped);
        return 'dropped';
      }
      if (slowedDown) {
        // Its answer stands; every further reply (QUIT's too) would come as slowly.
        habits.learnRefusalLimit(target.address, refusalsBefore);
        session.abort();
        return 'dropped';
      }
      if (live.refusals >= refusalLimit) return 'spent';
      if (slot.wanted(prober.pending())) return 'spent';
      // Slots freed meanwhile (the host's other domains are done) take a share of what is left.
      prober.startWorker(slot);
    } catch (error) {
      session.abort();
      if (error instanceof SmtpError && live.refusals >= SAFE_REFUSALS && (error.kind === 'closed' || error.kind === 'timeout')) {
        cutOffAfterRefusals(prober, item, target, live.refusals);
      } else if (error instanceof SmtpError) {
        lost(prober, item, error, target, live.replies === 0);
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

/**
 * The session died while `item` was being asked. A host that stops answering mid-list would
 * cost a timeout per address, and one that said 421 has answered (asking again at once would
 * send the same RCPT twice): either way that is the address's answer, and the next addresses
 * go to the next host. A connection cut without a word answered nothing: the address is asked
 * again, at the next host when this one cut the session before answering anything (`silent`),
 * as if it had refused the connection; asking it again would cost a connection per address.
 */
function lost(prober: DomainQueue, item: Pending, error: SmtpError, target: SessionTarget, silent: boolean): void {
  if (error.kind === 'timeout' || error.reply) {
    item.answer({ outcome: outcomeOfFailure(error, target), kind: null });
    prober.giveUpOn(target, error);
  } else if (silent) {
    prober.putBack(item);
    prober.giveUpOn(target, error);
  } else if (++item.drops >= MAX_DROPS_PER_ADDRESS) {
    item.answer({ outcome: outcomeOfFailure(error, target), kind: null });
  } else {
    prober.putBack(item);
  }
}

/**
 * The host hung up or went silent once the session had more refusals than every host takes: it
 * limits them. That is about the session, not the address nor the host: the address is asked
 * again in a new session, which stops before the limit now learnt.
 */
function cutOffAfterRefusals(prober: DomainQueue, item: Pending, target: SessionTarget, refusals: number): void {
  prober.options.habits.learnRefusalLimit(target.address, refusals);
  prober.putBack(item);
}
