import { randomBytes } from 'node:crypto';

/**
 * The `isCatchAll` check: a domain whose server accepts a random, certainly non-existent local
 * part accepts anything, so its "yes" says nothing about a real address.
 */
export interface CatchAllFinding {
  isCatchAll: boolean;
  /** False when the probe got no clear answer (timeout, greylisting to the end, blocked). */
  decided: boolean;
  /** The reply line to the random address, for `reason`. */
  reason: string;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 20 random letters and digits: no mailbox anywhere is called that, and it looks like nothing special. */
export function catchAllProbeAddress(asciiDomain: string): string {
  const local = [...randomBytes(20)].map((byte) => LETTERS[byte % LETTERS.length]).join('');
  return `${local}@${asciiDomain}`;
}

export const UNDECIDED: CatchAllFinding = { isCatchAll: false, decided: false, reason: 'not probed' };
