import type { Command } from 'commander';
import type { JobProgress } from '../../../client/types.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { InterruptedError } from '../../errors.js';
import { createSession } from '../../session.js';
import { DEFAULT_WAIT_TIMEOUT, Interruption, jobsNamed, parseWaitTimeout, progressOf, waitForJobs } from './jobs.js';
import { shellQuote } from './output.js';
import { fraction } from './progress.js';

interface StatusFlags {
  watch?: boolean;
  waitTimeout?: string;
  json?: boolean;
}

function describe(progress: JobProgress, json: boolean): string {
  if (json) return toSafeJson(progress);
  const { job_id: id, name, status, processed, total, progress_percent: percent } = progress;
  const named = name === undefined ? '' : ` (${terminalSafe(name)})`;
  return `job ${terminalSafe(id)}${named}: ${terminalSafe(status)}, ${fraction(processed, total)} (${percent}%)`;
}

export async function runBulkStatus(jobIds: string[], command: Command): Promise<void> {
  const flags = command.optsWithGlobals<StatusFlags>();
  const interruption = new Interruption();
  const session = createSession(command, { signal: interruption.signal });
  const { io } = session;
  const print = (progresses: JobProgress[]) => io.stdout.write(progresses.map((each) => `${describe(each, io.json)}\n`).join(''));
  try {
    const client = session.authenticatedClient();
    if (!flags.watch) {
      print(await progressOf(client, jobIds));
      return;
    }
    // On a terminal the spinner shows the way and the end is printed once; in a log, every change is a line.
    let last = '';
    const printChanges = (progresses: JobProgress[]) => {
      const text = progresses.map((each) => describe(each, io.json)).join('\n');
      if (text !== last) print(progresses);
      last = text;
    };
    const watch = ['mailverify', 'bulk', 'status', ...jobIds, '--watch'].map(shellQuote).join(' ');
    const final = await interruption.during(
      () =>
        waitForJobs(client, jobIds, {
          io,
          signal: interruption.signal,
          outageMs: parseWaitTimeout(flags.waitTimeout ?? DEFAULT_WAIT_TIMEOUT),
          resume: watch,
          // Off a terminal every change is printed on stdout already.
          lines: false,
          onPoll: io.interactive ? undefined : printChanges,
        }),
      () => new InterruptedError(`stopped watching; the service goes on with ${jobsNamed(jobIds)}`, `watch again with: ${watch}`),
    );
    if (io.interactive) print(final);
  } finally {
    await session.close();
  }
}
