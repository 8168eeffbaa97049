import type { LedgerEntry } from './model.js';

/**
 * The ledger as people read it: a job's refunds are written a batch at a time (each batch of results
 * gives back what it could not verify, docs/architecture.md "The result cache and refunds"), so one job leaves several
 * refund rows in a row. Read, they are one line per job: the amounts summed, the balance and time
 * of the last. Only rows that follow each other are joined, so every line's balance stays the one
 * after it; the rows underneath are kept as written.
 */
export function joinJobRefunds(entries: readonly LedgerEntry[]): LedgerEntry[] {
  const lines: LedgerEntry[] = [];
  for (const entry of entries) {
    const last = lines.at(-1);
    if (last && entry.reason === 'refund' && last.reason === 'refund' && entry.jobId !== null && last.jobId === entry.jobId && last.userId === entry.userId) {
      lines[lines.length - 1] = { ...entry, delta: last.delta + entry.delta };
    } else {
      lines.push(entry);
    }
  }
  return lines;
}
