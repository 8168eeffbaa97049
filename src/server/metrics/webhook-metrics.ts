import { Counter, Gauge, type Registry } from 'prom-client';
import type { AttemptOutcome, WebhookStore } from '../store/store.js';

/** What became of an attempt, as the metric's label says it. */
const OUTCOMES: Record<AttemptOutcome['next']['kind'], string> = { delivered: 'delivered', retry: 'retry', failed: 'failed', disable: 'disabled' };

/** Told of each attempt a deliverer records: what followed it. */
export type AttemptObserver = (next: AttemptOutcome['next']['kind']) => void;

/**
 * Webhook metrics (docs/architecture.md "Metrics"): this node's attempts by outcome, and from the
 * store at each scrape the deliveries due and not held (shared by every node) and how long the
 * oldest of them has been due, the number that grows when deliveries fall behind.
 */
export function watchWebhooks(registry: Registry, store: Pick<WebhookStore, 'backlog'>): AttemptObserver {
  const attempts = new Counter({
    name: 'mailverify_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this node, by outcome: delivered, retry (failed, tried again later), failed (no tries left), disabled (the endpoint answered 410 or failed for days)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of Object.values(OUTCOMES)) attempts.inc({ outcome }, 0);
  let backlog: Promise<Awaited<ReturnType<WebhookStore['backlog']>> | undefined> | undefined;
  // Both gauges from one read of the store per scrape.
  const read = () =>
    (backlog ??= store
      .backlog()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (backlog = undefined), 0)));
  new Gauge({
    name: 'mailverify_webhook_deliveries_due',
    help: 'Webhook deliveries whose time has come and that no node holds yet, across every node',
    registers: [registry],
    async collect() {
      const now = await read();
      if (now) this.set(now.due);
    },
  });
  new Gauge({
    name: 'mailverify_webhook_oldest_due_seconds',
    help: 'How long the oldest due webhook delivery has been waiting (0 when none is due)',
    registers: [registry],
    async collect() {
      const now = await read();
      if (now) this.set(now.oldestDueAt === null ? 0 : Math.max(0, (Date.now() - now.oldestDueAt) / 1_000));
    },
  });
  return (next) => attempts.inc({ outcome: OUTCOMES[next] });
}
