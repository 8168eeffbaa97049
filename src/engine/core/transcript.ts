/**
 * What `--explain` shows of one verification (docs/architecture.md "Explain"): the mail hosts tried
 * and the egress each connection went out through, every SMTP line sent and received with its time,
 * and notes on what was reused instead of asked. Recorded only when a caller asks for it: sessions
 * without a transcript pay one `undefined` check per line.
 */

/** One SMTP line, `ms` after the verification started. */
export interface TranscriptLine {
  ms: number;
  dir: 'sent' | 'received';
  line: string;
}

/** One connection attempt at a mail host: `outcome` is `connected` or why not. */
export interface ConnectionAttempt {
  ms: number;
  host: string;
  address: string;
  /** The egress it went out through (net/egress-key.ts: never a credential). */
  egress: string;
  outcome: string;
}

/** `details` of an explained result. */
export interface Explanation {
  /** The domain's mail hosts in preference order, as resolved (those after the one that answered were not tried). */
  mxHosts: { host: string; address: string }[];
  connections: ConnectionAttempt[];
  transcript: TranscriptLine[];
  /** What was reused rather than asked (the domain's facts, the catch-all finding, a cached result). */
  notes: string[];
}

export class Transcript {
  private readonly started = performance.now();
  readonly mxHosts: Explanation['mxHosts'] = [];
  readonly connections: ConnectionAttempt[] = [];
  readonly lines: TranscriptLine[] = [];
  readonly notes: string[] = [];

  private now(): number {
    return Math.round(performance.now() - this.started);
  }

  sent(line: string): void {
    this.lines.push({ ms: this.now(), dir: 'sent', line });
  }

  received(line: string): void {
    this.lines.push({ ms: this.now(), dir: 'received', line });
  }

  connection(attempt: Omit<ConnectionAttempt, 'ms'>): void {
    this.connections.push({ ms: this.now(), ...attempt });
  }

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  explanation(): Explanation {
    return { mxHosts: [...this.mxHosts], connections: [...this.connections], transcript: [...this.lines], notes: [...this.notes] };
  }
}
