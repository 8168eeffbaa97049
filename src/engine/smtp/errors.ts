import type { SmtpReply } from './reply.js';

/**
 * Why an SMTP conversation ended without an answer to our question:
 * - `connect`: no TCP connection (refused, unreachable, connect timeout);
 * - `timeout`: the server did not answer a command in time;
 * - `closed`: the server hung up (or the connection broke) mid-conversation;
 * - `tls`: the STARTTLS handshake failed;
 * - `protocol`: the server does not speak SMTP as we understand it;
 * - `refused`: the server answered, but refused the greeting, EHLO/HELO or MAIL FROM (`reply` says how).
 */
export type SmtpFailureKind = 'connect' | 'timeout' | 'closed' | 'tls' | 'protocol' | 'refused';

export class SmtpError extends Error {
  constructor(
    readonly kind: SmtpFailureKind,
    message: string,
    readonly reply?: SmtpReply,
    /** The failure underneath, when there is one (a DialError says whether our own network is at fault). */
    cause?: Error,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SmtpError';
  }
}
