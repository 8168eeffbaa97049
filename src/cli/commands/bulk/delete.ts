import type { Command } from 'commander';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { withClient } from '../../with-client.js';

/**
 * `mailverify bulk delete <job...>`: the jobs' addresses and results leave the service
 * (docs/api.md "Deleting a job"); a job still processing stops, its unverified addresses refunded.
 * One after another: a job that is not there (exit 7) stops the run before the next.
 */
export async function runBulkDelete(jobIds: string[], command: Command): Promise<void> {
  await withClient(command, async (client, io) => {
    for (const jobId of jobIds) {
      await client.deleteJob(jobId);
      if (io.json) io.stdout.write(`${toSafeJson({ job_id: jobId, deleted: true })}\n`);
      else if (!io.quiet) io.stderr.write(`job ${terminalSafe(jobId)} deleted\n`);
    }
  });
}
