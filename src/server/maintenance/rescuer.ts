import type { WorkQueue } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import type { MaintenanceService } from './service.js';

/** How often a node looks for leases whose holder is gone (a cheap query over a partial index). */
const RESCUE_EVERY_MS = 1_000;

/**
 * Frees the leases of holders that are gone (docs/architecture.md "Liveness beside leases"), so a
 * dead runner's chunks are claimed again within seconds rather than when their leases run out, and
 * its webhook deliveries with them. `onFreed` hears how many items it freed, so that the runner
 * claims them at once rather than at its next look.
 */
export function rescuer(queue: Pick<WorkQueue, 'rescue'>, log: BackgroundLog, onFreed: (items: number) => void): MaintenanceService {
  return {
    name: 'rescuer',
    everyMs: RESCUE_EVERY_MS,
    failed: 'could not look for the leases of runners that are gone; trying again shortly',
    async run() {
      const freed = await queue.rescue();
      if (freed > 0) {
        onFreed(freed);
        log.info({ items: freed }, 'took over the leases of a runner that is gone');
      }
      return freed;
    },
  };
}
