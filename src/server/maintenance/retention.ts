import type { MaintenanceService } from './service.js';
import type { BackgroundLog } from '../background/log.js';

/** Rows deleted per store call: a large backlog goes in several short transactions, not one that holds the store. */
const ROWS_PER_ROUND = 50;
/** The longest wait between looks; a short retention is looked at more often (a quarter of it, at least every second). */
const MAX_LOOK_EVERY_MS = 3_600_000;

/**
 * `--retention` and `--upload-retention` (docs/operating.md "Data leaves when asked"): what is older
 * than `retentionMs` is deleted by `deleteBefore` (JobStore.deleteFinishedBefore: the jobs that
 * finished longer ago, their addresses and results with them, as DELETE /v1/bulk-verify/{id} does;
 * DashboardStore.deleteUploadsBefore: the lists uploaded and never submitted). Every node running
 * it looks; two deleting at once delete each row once. `what` names them in the log.
 */
export function retention(
  name: string,
  deleteBefore: (before: string, limit: number) => Promise<number>,
  retentionMs: number,
  log: BackgroundLog,
  what: string,
): MaintenanceService {
  return {
    name,
    everyMs: Math.min(MAX_LOOK_EVERY_MS, Math.max(1_000, retentionMs / 4)),
    failed: `could not delete ${what} past the retention; trying again later`,
    async run({ now, signal }) {
      const before = new Date(now - retentionMs).toISOString();
      let deleted = 0;
      for (let round = ROWS_PER_ROUND; round === ROWS_PER_ROUND && !signal.aborted; deleted += round) round = await deleteBefore(before, ROWS_PER_ROUND);
      if (deleted > 0) log.info({ deleted }, `${what} past the retention deleted`);
      return deleted;
    },
  };
}
