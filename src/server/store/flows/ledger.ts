import { joinJobRefunds } from '../ledger-lines.js';
import type { LedgerEntry } from '../model.js';
import { toLedger, type LedgerRow } from '../rows/accounts.js';
import { step, type Awaitable, type Flow } from './flow.js';

/** Ledger rows read per look back: a page of ten lines is one look unless a job's refunds run long. */
const PAGE_ROWS = 100;

/** A user's ledger rows with an id below `beforeId`, newest first, at most `limit`. */
export type LedgerPage = (userId: number, beforeId: number, limit: number) => Awaitable<LedgerRow[]>;

/**
 * The user's last `lines` ledger lines (joinJobRefunds), oldest first, as the end of `ledger()`
 * would give them, reading back a page at a time and no further than it takes for one more line to
 * begin before them: then the oldest line shown holds every row of its job's refunds.
 */
export function* recentLedger(page: LedgerPage, userId: number, lines: number): Flow<LedgerEntry[]> {
  const newestFirst: LedgerRow[] = [];
  for (;;) {
    const more = yield* step(page(userId, newestFirst.at(-1)?.id ?? Number.MAX_SAFE_INTEGER, PAGE_ROWS));
    newestFirst.push(...more);
    const joined = joinJobRefunds(newestFirst.map(toLedger).reverse());
    if (joined.length > lines || more.length < PAGE_ROWS) return joined.slice(-lines);
  }
}
