import type { SmtpError } from '../smtp/errors.js';
import { describeReply, replyKind, statusOfKind, type ReplyKind } from '../smtp/reply-table.js';
import type { SmtpReply } from '../smtp/reply.js';
import type { SessionTarget } from '../smtp/session.js';
import type { SmtpStatus } from '../types.js';

/** The `smtpStatus` check for one address, and the words behind it (a result's `reason`). */
export interface SmtpOutcome {
  status: SmtpStatus;
  reason: string;
}

export function outcomeOfReply(reply: SmtpReply, kind: ReplyKind = replyKind(reply)): SmtpOutcome {
  return { status: statusOfKind(kind), reason: describeReply(reply, kind) };
}

/** Why a host gave no answer to our question: refused connection, timeout, refused greeting... */
export function outcomeOfFailure(error: SmtpError, target: SessionTarget): SmtpOutcome {
  const where = `${target.hostname} (${target.address})`;
  if (error.reply) {
    const kind = replyKind(error.reply);
    // A 4xx greeting is a busy server, not greylisting: say which step was refused instead.
    const text = kind === 'temporary' ? error.message : describeReply(error.reply, kind);
    return { status: 'unknown', reason: `${text} (${where})` };
  }
  const prefix = error.kind === 'timeout' ? 'timeout' : error.kind === 'connect' ? 'no connection' : 'connection lost';
  return { status: 'unknown', reason: `${prefix}: ${where}: ${error.message}` };
}

export function unknownOutcome(reason: string): SmtpOutcome {
  return { status: 'unknown', reason };
}
