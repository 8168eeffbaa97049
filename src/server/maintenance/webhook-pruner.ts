import type { WebhookStore } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import type { MaintenanceService } from './service.js';

/** How often settled deliveries and attempts past the retention are deleted. */
const PRUNE_EVERY_MS = 3_600_000;

/** Deletes settled webhook deliveries and attempts past the retention, and endpoints removed before it (WebhookStore.prune). */
export function webhookPruner(store: Pick<WebhookStore, 'prune'>, retentionMs: number, log: BackgroundLog): MaintenanceService {
  return {
    name: 'webhook_pruner',
    everyMs: PRUNE_EVERY_MS,
    failed: 'could not delete webhook deliveries past their retention; trying again later',
    async run({ now }) {
      const pruned = await store.prune(new Date(now - retentionMs).toISOString());
      if (pruned > 0) log.info({ pruned }, 'webhook deliveries and attempts past their retention deleted');
      return pruned;
    },
  };
}
