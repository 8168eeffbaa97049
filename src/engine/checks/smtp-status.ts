import type { SmtpError } from '../smtp/errors.js';
import { describeReply, replyKind, statusOfKind, wordsOfKind, type ReplyKind } from '../smtp/reply-table.js';
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
  // Refused before RCPT: whatever the reply says, it is about us or the server, never the mailbox.
  if (error.reply) return { status: 'unknown', reason: `${wordsOfKind(replyKind(error.reply))}: ${error.message} (${where})` };
  const prefix = error.kind === 'timeout' ? 'timeout' : error.kind === 'connect' ? 'no connection' : 'connection lost';
  return { status: 'unknown', reason: `${prefix}: ${where}: ${error.message}` };
}

export function unknownOutcome(reason: string): SmtpOutcome {
  return { status: 'unknown', reason };
}
