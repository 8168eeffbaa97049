import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import type { Io } from '../../output/io.js';
import { listArg, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';

export interface DeleteOptions {
  program: ProgramOptions;
  jobIds: string[];
}

export function parse(parsed: ParsedCommand): DeleteOptions {
  return { program: programOptions(parsed.program), jobIds: listArg(parsed, 0) };
}

/**
 * `mailverify bulk delete <job...>`: the jobs' addresses and results leave the service
 * (docs/api.md "Deleting a job"); a job still processing stops, its unverified addresses refunded.
 * One after another: a job that is not there (exit 7) stops the run before the next.
 */
export async function run({ program, jobIds }: DeleteOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    for (const jobId of jobIds) {
      await client.deleteJob(jobId);
      if (io.json) io.stdout.write(`${toSafeJson({ job_id: jobId, deleted: true })}\n`);
      else if (!io.quiet) io.stderr.write(`job ${terminalSafe(jobId)} deleted\n`);
    }
  });
}
