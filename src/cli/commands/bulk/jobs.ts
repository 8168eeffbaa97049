import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from '../../../client/api-client.js';
import type { JobProgress } from '../../../client/types.js';
import { ResultIndex } from '../../../csv/result-index.js';
import { JobNotFinishedError, type InterruptedError } from '../../errors.js';
import type { Io } from '../../io.js';
import { startProgress } from './progress.js';

/** Polls quickly at first (small jobs finish in a moment), then settles to be gentle on the rate limit. */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2_000;

/**
 * Ctrl-C while waiting on the service. The signal exists from the start (the client is built with
 * it) but a SIGINT handler is installed only around `during`: elsewhere Ctrl-C keeps its usual effect.
 */
export class Interruption {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs `work`; on SIGINT aborts it (requests and waits) and throws `interrupted()` instead. */
  async during<T>(work: () => Promise<T>, interrupted: () => InterruptedError): Promise<T> {
    const onSigint = () => this.controller.abort();
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

function sumProgress(progresses: JobProgress[]): { processed: number; total: number } {
  return progresses.reduce((sum, each) => ({ processed: sum.processed + each.processed, total: sum.total + each.total }), { processed: 0, total: 0 });
}

/** Every job's progress, asked for at once. */
export function progressOf(client: ApiClient, jobIds: string[]): Promise<JobProgress[]> {
  return Promise.all(jobIds.map((id) => client.progress(id)));
}

const isCompleted = (progress: JobProgress) => progress.status === 'completed';

/**
 * Polls the jobs until all are completed, showing one progress display for all of them and
 * calling `onPoll` (if given) with every answer.
 */
export async function waitForJobs(
  client: ApiClient,
  jobIds: string[],
  options: { io: Io; signal: AbortSignal; onPoll?: (progresses: JobProgress[]) => void },
): Promise<JobProgress[]> {
  const progress = await startProgress(options.io, 'verifying');
  try {
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      const progresses = await progressOf(client, jobIds);
      const { processed, total } = sumProgress(progresses);
      progress.update(processed, total);
      options.onPoll?.(progresses);
      if (progresses.every(isCompleted)) return progresses;
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

/** Every result of the jobs, found by address. */
export async function fetchResults(client: ApiClient, jobIds: string[]): Promise<ResultIndex> {
  const results = new ResultIndex();
  for (const id of jobIds) results.add((await client.job(id)).results);
  return results;
}
