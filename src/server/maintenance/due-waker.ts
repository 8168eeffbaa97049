import type { WorkQueue } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import type { MaintenanceService } from './service.js';

/** How often a node looks for items whose next try is due (a range of the due index). */
const WAKE_EVERY_MS = 1_000;

/**
 * Makes claimable again the items whose temporary answer's next try is due (docs/architecture.md
 * "Settling later"); `onDue` hears of them, so that the runner claims them at once.
 */
export function dueWaker(queue: Pick<WorkQueue, 'wakeDue'>, log: BackgroundLog, onDue: () => void): MaintenanceService {
  return {
    name: 'due_waker',
    everyMs: WAKE_EVERY_MS,
    failed: 'could not look for the addresses whose next try is due; trying again shortly',
    async run() {
      const due = await queue.wakeDue();
      if (due > 0) {
        onDue();
        log.info({ items: due }, 'asking again the addresses whose next try is due');
      }
      return due;
    },
  };
}
