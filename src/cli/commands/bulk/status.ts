import type { JobProgress } from '../../../client/types.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { InterruptedError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { listArg, switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { createSession } from '../../session/session.js';
import { DEFAULT_WAIT_TIMEOUT, Interruption, jobsNamed, parseWaitTimeout, progressOf, waitForJobs } from './support/jobs.js';
import { shellQuote } from './support/output.js';
import { progressEvents, writeSummaryEvent } from './support/events.js';
import { everyInterval, fraction, tally, waitingNote } from './support/progress.js';

/** `bulk status`'s options, checked. */
export interface StatusOptions {
  program: ProgramOptions;
  jobIds: string[];
  /**
   * --watch, with --wait-timeout as given: how long the watch bears a service that does not answer.
   * It is checked when the watch starts, after the login: a missing login is said first.
   */
  watch?: { waitTimeout?: string };
}

/** `bulk status`'s command line as options, or a UsageError. */
export function parse(parsed: ParsedCommand): StatusOptions {
  // --wait-timeout means nothing without --watch, and is not checked then.
  const watch = switchFlag(parsed.flags, 'watch') ? { waitTimeout: textFlag(parsed.flags, 'waitTimeout') } : undefined;
  return { program: programOptions(parsed.program), jobIds: listArg(parsed, 0), watch };
}

function describe(progress: JobProgress, json: boolean): string {
  if (json) return toSafeJson(progress);
  const { job_id: id, name, status, processed, total, progress_percent: percent } = progress;
  const named = name === undefined ? '' : ` (${terminalSafe(name)})`;
  const waiting = waitingNote(tally([progress]));
  return `job ${terminalSafe(id)}${named}: ${terminalSafe(status)}, ${fraction(processed, total)} (${percent}%)${waiting ? `; ${waiting}` : ''}`;
}

/** Prints the jobs' progress; with --watch, until they are all completed. */
export async function run({ program, jobIds, watch: watching }: StatusOptions, io: Io): Promise<void> {
  const interruption = new Interruption();
  const session = createSession(program, io, { signal: interruption.signal });
  const print = (progresses: JobProgress[]) => io.stdout.write(progresses.map((each) => `${describe(each, io.json)}\n`).join(''));
  try {
    const client = session.authenticatedClient();
    if (!watching) {
      print(await progressOf(client, jobIds));
      return;
    }
    // On a terminal the spinner shows the way and the end is printed once; under --json every change
    // is an event (docs/cli.md "Progress in logs"); in a log, a line every 10 s.
    const line = everyInterval(print);
    const onPoll = io.json
      ? progressEvents(io)
      : io.interactive
        ? undefined
        : (progresses: JobProgress[]) => progresses.some((each) => each.status !== 'completed') && line(progresses);
    const watch = ['mailverify', 'bulk', 'status', ...jobIds, '--watch'].map(shellQuote).join(' ');
    const final = await interruption.during(
      () =>
        waitForJobs(client, jobIds, {
          io,
          signal: interruption.signal,
          outageMs: parseWaitTimeout(watching.waitTimeout ?? DEFAULT_WAIT_TIMEOUT),
          resume: watch,
          // The answers are printed here (onPoll), or shown by the spinner.
          lines: false,
          onPoll,
        }),
      () => new InterruptedError(`stopped watching; the service goes on with ${jobsNamed(jobIds)}`, `watch again with: ${watch}`),
    );
    if (io.json) for (const progress of final) writeSummaryEvent(io, progress);
    else print(final);
  } finally {
    await session.close();
  }
}
