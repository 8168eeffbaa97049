import type { JobStore } from '../store/store.js';
import type { BackgroundLog } from '../background/log.js';
import { WakeableSleep } from '../background/wakeable-sleep.js';

/** Jobs deleted per store call: a large backlog goes in several short transactions, not one that holds the store. */
const JOBS_PER_ROUND = 50;
/** The longest wait between looks; a short retention is looked at more often (a quarter of it, at least every second). */
const MAX_LOOK_EVERY_MS = 3_600_000;

/**
 * `--retention` (docs/operating.md "Data leaves when asked"): the jobs that finished longer ago than `retentionMs` are
 * deleted, their addresses and results with them, as DELETE /v1/bulk-verify/{id} does (the ledger
 * keeps its amounts). Every node with a runner looks; two deleting at once delete each job once.
 */
export function startRetention(jobs: Pick<JobStore, 'deleteFinishedBefore'>, retentionMs: number, log: BackgroundLog): { stop(): Promise<void> } {
  const lookEveryMs = Math.min(MAX_LOOK_EVERY_MS, Math.max(1_000, retentionMs / 4));
  const sleep = new WakeableSleep();
  let stopped = false;

  async function loop(): Promise<void> {
    while (!stopped) {
      try {
        const before = new Date(Date.now() - retentionMs).toISOString();
        let deleted = 0;
        for (let round = JOBS_PER_ROUND; round === JOBS_PER_ROUND && !stopped; deleted += round)
          round = await jobs.deleteFinishedBefore(before, JOBS_PER_ROUND);
        if (deleted > 0) log.info({ deleted }, 'finished jobs past the retention deleted');
      } catch (error) {
        log.error({ err: error }, 'could not delete finished jobs past the retention; trying again later');
      }
      if (!stopped) await sleep.sleep(lookEveryMs);
    }
  }

  const running = loop();
  return {
    async stop() {
      stopped = true;
      sleep.wake();
      await running;
    },
  };
}
