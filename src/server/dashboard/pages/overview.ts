import type { FastifyInstance } from 'fastify';
import type { LedgerEntry } from '../../store/store.js';
import type { DashboardConfig } from '../config.js';
import { renderPage } from '../render.js';
import { signedIn } from '../signed-in.js';

/** Days of usage shown on the overview. */
const USAGE_DAYS = 30;

export interface UsageDay {
  day: string;
  charged: number;
  granted: number;
  refunded: number;
}

/** The ledger summed by UTC day, newest first: what was spent, granted and given back. */
export function usageByDay(entries: LedgerEntry[]): UsageDay[] {
  const days = new Map<string, UsageDay>();
  for (const entry of entries) {
    const day = entry.createdAt.slice(0, 10);
    let usage = days.get(day);
    if (!usage) days.set(day, (usage = { day, charged: 0, granted: 0, refunded: 0 }));
    if (entry.reason === 'grant') usage.granted += entry.delta;
    else if (entry.reason === 'refund') usage.refunded += entry.delta;
    else usage.charged -= entry.delta;
  }
  return [...days.values()].sort((a, b) => b.day.localeCompare(a.day)).slice(0, USAGE_DAYS);
}

export function overviewPages(app: FastifyInstance, { store, refundUnknown = false }: DashboardConfig): void {
  app.get('/', async (request, reply) => {
    const { user } = signedIn(request);
    const ledger = await store.accounts.ledger(user.id);
    return renderPage(request, reply, 'overview', {
      title: 'Overview',
      balance: user.balance,
      rateLimit: { limit: user.rateLimit, windowSeconds: user.rateWindowSeconds },
      refundUnknown,
      usage: usageByDay(ledger),
      recent: ledger.slice(-10).reverse(),
    });
  });
}
