import { DialError } from '../net/egress.js';
import type { ReasonCode } from '../core/reason-codes.js';
import type { SmtpError } from './errors.js';
import { codeOfKind, describeReply, replyKind, statusOfKind, wordsOfKind, type ReplyKind } from './reply-table.js';
import type { SmtpReply } from './reply.js';
import type { SessionTarget } from './session.js';
import type { SmtpStatus } from '../core/types.js';

/** The `smtpStatus` check for one address, the words behind it (a result's `reason`) and their code. */
export interface SmtpOutcome {
  status: SmtpStatus;
  reason: string;
  code: ReasonCode;
  /** Why an acceptance proves nothing here (a provider rule says the host takes every RCPT). */
  unproven?: string;
  /** A connect timeout the port-25 watch is still judging (net/port25.ts): see `settledOutcome`. */
  portCheck?: Promise<string | null>;
}

/**
 * The outcome once the port-25 watch has judged its timeout: a port found blocked names that for
 * this address too (`port25_blocked`, not the host's timeout), as for every address after it.
 */
export async function settledOutcome(outcome: SmtpOutcome): Promise<SmtpOutcome> {
  if (outcome.portCheck === undefined) return outcome;
  const blocked = await outcome.portCheck;
  const { portCheck: _judged, ...settled } = outcome;
  return blocked === null ? settled : unknownOutcome(blocked, 'port25_blocked');
}

export function outcomeOfReply(reply: SmtpReply, kind: ReplyKind = replyKind(reply)): SmtpOutcome {
  return { status: statusOfKind(kind), reason: describeReply(reply, kind), code: codeOfKind(kind) };
}

/** Why no connection was made, as a code: our own network's condition, or the host's silence. */
function codeOfDialFailure(cause: DialError): ReasonCode {
  if (cause.condition === 'port-blocked') return 'port25_blocked';
  if (cause.condition === 'proxy') return 'proxy_failed';
  return cause.timedOut ? 'timeout' : 'connection_failed';
}

function codeOfFailure(error: SmtpError): ReasonCode {
  if (error.cause instanceof DialError) return codeOfDialFailure(error.cause);
  return error.kind === 'timeout' ? 'timeout' : 'connection_failed';
}

/** Why a host gave no answer to our question: refused connection, timeout, refused greeting... */
export function outcomeOfFailure(error: SmtpError, target: SessionTarget): SmtpOutcome {
  const where = `${target.hostname} (${target.address})`;
  // Refused before RCPT: whatever the reply says, it is about us or the server, never the mailbox.
  if (error.reply) {
    const kind = replyKind(error.reply);
    // A refusal there names no mailbox: read unexplained, it is the server refusing us.
    const code = statusOfKind(kind) === 'unknown' ? codeOfKind(kind) : 'connection_failed';
    return { status: 'unknown', reason: `${wordsOfKind(kind)}: ${error.message} (${where})`, code };
  }
  const prefix = error.kind === 'timeout' ? 'timeout' : error.kind === 'connect' ? 'no connection' : 'connection lost';
  const portCheck = error.cause instanceof DialError ? error.cause.portCheck : undefined;
  return { status: 'unknown', reason: `${prefix}: ${where}: ${error.message}`, code: codeOfFailure(error), ...(portCheck ? { portCheck } : {}) };
}

export function unknownOutcome(reason: string, code: ReasonCode): SmtpOutcome {
  return { status: 'unknown', reason, code };
}
