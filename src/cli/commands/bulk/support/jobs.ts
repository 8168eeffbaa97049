import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../../../../client/api-client.js';
import type { JobProgress } from '../../../../client/types.js';
import { isTransient } from '../../../../client/errors.js';
import { ResultIndex } from '../../../../csv/result-index.js';
import { CliError, ExitCode, JobNotFinishedError, UsageError, type InterruptedError } from '../../../output/errors.js';
import { durationMs } from '../../../options/engine-flags.js';
import { duration } from '../../../output/format.js';
import { waitNotice, type Io } from '../../../output/io.js';
import { startProgress, tally, type Progress } from './progress.js';

/**
 * Polls quickly at first (small jobs finish in a moment), then backs off to be gentle on the rate
 * limit, but only to MOVING_POLL_MS while the jobs' progress moves: a job that is running can end
 * at any poll, and every moment between its end and the next poll is added to the wait (at 2 s a
 * large job's wait grew by a second on average). When less is left than the last interval
 * processed, the end is near and polls go back to FIRST_POLL_MS. Jobs that stand still (queued
 * behind others) are polled up to MAX_POLL_MS apart.
 */
const FIRST_POLL_MS = 250;
const MOVING_POLL_MS = 500;
const MAX_POLL_MS = 2_000;

/**
 * Ctrl-C while waiting on the service. The signal exists from the start (the client is built with
 * it) but a SIGINT handler is installed only around `during`: elsewhere Ctrl-C keeps its usual effect.
 */
/** A SIGINT this soon after the first is its echo (a library re-raising it), not a second Ctrl-C. */
const ECHO_MS = 300;

export class Interruption {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Runs `work`; on SIGINT aborts it (requests and waits) and throws `interrupted()` instead. With
   * `stopping`, the first SIGINT says it (while the work winds down) and a second quits at once.
   */
  async during<T>(work: () => Promise<T>, interrupted: () => InterruptedError, stopping?: (line: string) => void): Promise<T> {
    let firstAt: number | undefined;
    const onSigint = () => {
      if (firstAt === undefined) {
        firstAt = Date.now();
        stopping?.('interrupted: stopping; press Ctrl-C again to quit at once');
        this.controller.abort();
      } else if (stopping && Date.now() - firstAt >= ECHO_MS) process.exit(ExitCode.interrupted);
    };
    // `on`, not `once`: ora's signal-exit re-raises SIGINT when it finds itself the only listener
    // left, which would kill the process before it can say how to resume.
    process.on('SIGINT', onSigint);
    try {
      return await work();
    } catch (error) {
      if (this.controller.signal.aborted) throw interrupted();
      throw error;
    } finally {
      process.off('SIGINT', onSigint);
    }
  }
}

/** "job a" or "jobs a, b", for messages. */
export function jobsNamed(jobIds: string[]): string {
  return `${jobIds.length === 1 ? 'job' : 'jobs'} ${jobIds.join(', ')}`;
}

/** Every job's progress, asked for at once. */
export function progressOf(client: ApiClient, jobIds: string[]): Promise<JobProgress[]> {
  return Promise.all(jobIds.map((id) => client.progress(id)));
}

const isCompleted = (progress: JobProgress) => progress.status === 'completed';

/** How long `--wait` goes on trying a service that does not answer, unless --wait-timeout says otherwise. */
export const DEFAULT_WAIT_TIMEOUT = '10m';
/** Backoff while the service does not answer: from this, doubling, up to OUTAGE_MAX_MS. */
const OUTAGE_FIRST_MS = 1_000;
const OUTAGE_MAX_MS = 30_000;

/** `--wait-timeout`: "90" (seconds), "90s", "10m", "1h"; more than nothing. */
export function parseWaitTimeout(raw: string): number {
  const ms = durationMs(raw, '--wait-timeout', 'more than 0');
  if (ms <= 0) throw new UsageError(`--wait-timeout must be more than 0, got "${raw}"`);
  return ms;
}

/** What a wait needs besides the jobs: where to say things, how to stop, how long to bear an outage, how to resume. */
export interface WaitOptions {
  io: Io;
  signal: AbortSignal;
  /** How long the service may go unanswering (restarting, a network blip) before the wait gives up. */
  outageMs: number;
  /** The command that picks the wait up again, printed when it gives up. */
  resume: string;
}

/**
 * Runs `work` until it succeeds. A service that does not answer (down, restarting, 5xx, 429
 * after the client's own retries) is tried again with backoff, each wait said on stderr, for up
 * to `outageMs` from the first failure; then exit 1 with the command that resumes.
 */
async function throughOutages<T>(work: () => Promise<T>, client: ApiClient, options: WaitOptions, note: Progress['note']): Promise<T> {
  let since: number | undefined;
  for (let delay = OUTAGE_FIRST_MS; ; delay = Math.min(delay * 2, OUTAGE_MAX_MS)) {
    try {
      const value = await work();
      if (since !== undefined) note(`${client.baseUrl} answers again`);
      return value;
    } catch (error) {
      if (!isTransient(error) || options.signal.aborted) throw error;
      since ??= Date.now();
      const left = since + options.outageMs - Date.now();
      const reason = (error as Error).message;
      if (left <= 0) {
        throw new CliError(
          `gave up waiting after ${duration(options.outageMs)} without an answer: ${reason}`,
          ExitCode.failure,
          `resume with: ${options.resume}`,
        );
      }
      const wait = Math.min(delay, left);
      note(`no answer (${reason}); trying again in ${duration(wait)}, for ${duration(left)} more (--wait-timeout)`);
      await sleep(wait, undefined, { signal: options.signal });
    }
  }
}

/** The wait before the next poll, from the last one and what the jobs processed since the poll before. */
function nextPollDelay(delay: number, previous: number, processed: number, total: number): number {
  const moved = processed - previous;
  // Everything processed but not yet marked completed is the nearest end of all.
  if (total - processed <= Math.max(moved, 0)) return FIRST_POLL_MS;
  if (moved <= 0) return Math.min(delay * 2, MAX_POLL_MS);
  return Math.min(delay * 2, MOVING_POLL_MS);
}

/**
 * Polls the jobs until all are completed, showing one progress display for all of them (a
 * spinner, or lines unless `lines` is false) and calling `onPoll` (if given) with every answer.
 * The service going away for a while (a restart) is waited out: see throughOutages.
 */
export async function waitForJobs(
  client: ApiClient,
  jobIds: string[],
  options: WaitOptions & { onPoll?: (progresses: JobProgress[]) => void; lines?: boolean },
): Promise<JobProgress[]> {
  const progress = await startProgress(options.io, `waiting for ${jobsNamed(jobIds)}`, { lines: options.lines ?? true });
  try {
    let delay = FIRST_POLL_MS;
    let previous: number | undefined;
    for (;;) {
      const progresses = await throughOutages(
        () => progressOf(client, jobIds),
        client,
        options,
        (message) => progress.note(message),
      );
      const sum = tally(progresses);
      const { processed, total } = sum;
      progress.update(sum);
      options.onPoll?.(progresses);
      if (progresses.every(isCompleted)) return progresses;
      if (previous !== undefined) delay = nextPollDelay(delay, previous, processed, total);
      previous = processed;
      await sleep(delay, undefined, { signal: options.signal });
    }
  } finally {
    progress.stop();
  }
}

/** Exit 8, with the command that waits, unless every job is completed. */
export async function requireCompleted(client: ApiClient, jobIds: string[], resume: string): Promise<void> {
  const unfinished = (await progressOf(client, jobIds)).filter((each) => !isCompleted(each));
  if (unfinished.length === 0) return;
  const which = unfinished.map((each) => `${each.job_id} (${each.processed}/${each.total})`);
  throw new JobNotFinishedError(`still processing: ${jobsNamed(which)}`, `wait with: ${resume}`);
}

/** Results asked for at once: a large job comes in pages, so that no answer is tens of megabytes. */
const RESULTS_PAGE = 5_000;

/** Every result of the jobs, found by address; with `wait`, a service that does not answer is waited out as while polling. */
export async function fetchResults(client: ApiClient, jobIds: string[], wait?: WaitOptions): Promise<ResultIndex> {
  const results = new ResultIndex();
  const fetch = <T>(request: () => Promise<T>) => (wait ? throughOutages(request, client, wait, (message) => waitNotice(wait.io, message)) : request());
  for (const id of jobIds) {
    let cursor: string | undefined;
    do {
      const page = await fetch(() => client.jobPage(id, { limit: RESULTS_PAGE, cursor }));
      results.add(page.results);
      // Null after the last page; absent from a service that answers all results at once.
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
  return results;
}
