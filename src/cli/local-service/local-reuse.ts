import { isTemporary } from '../../engine/core/retry-schedule.js';
import type { VerificationResult } from '../../engine/core/types.js';
import type { JobListPlace, Store } from '../../server/store/open/open-store.js';
import { duration } from '../output/format.js';
import { counted } from '../output/format.js';

/**
 * What a local run takes from an earlier run of the same list (docs/cli.md "Clean a list on this
 * machine"): a final verdict found within --max-age; an `unknown`, never, nor a verdict older than
 * that. A nightly cron line would otherwise give the first night's verdicts forever.
 */

/** --max-age unless given: a month-old verdict about a mailbox is still worth more than a new RCPT. */
export const DEFAULT_MAX_AGE = '30d';

export interface Reuse {
  /** Answered addresses whose result is not reused: unknown, or older than --max-age. */
  again: string[];
  /** Results reused as they are. */
  reused: number;
  /** When the job of the oldest reused result was made (ISO). */
  oldest?: string;
}

const JOBS_PAGE = 100;

/** When each of these jobs of the user was made, read from the user's job list page by page. */
async function jobTimes(store: Store, userId: number, jobIds: string[]): Promise<Map<string, string>> {
  const wanted = new Set(jobIds);
  const times = new Map<string, string>();
  let after: JobListPlace | undefined;
  while (times.size < wanted.size) {
    const page = await store.jobs.listJobs(userId, JOBS_PAGE, after);
    for (const job of page) if (wanted.has(job.id)) times.set(job.id, job.createdAt);
    if (page.length < JOBS_PAGE) break;
    after = page.at(-1);
  }
  return times;
}

/**
 * Judges the newest result of each answered address of the chain (a later job's over an earlier
 * one's): reused when final and made within `maxAgeMs` of `now`; else to be asked again. A result
 * still waiting for its next try is neither: this run settles it.
 */
export async function judgeReuse(
  store: Store,
  userId: number,
  jobIds: string[],
  results: (jobId: string) => Promise<VerificationResult[]>,
  maxAgeMs: number,
  now = Date.now(),
): Promise<Reuse> {
  const times = await jobTimes(store, userId, jobIds);
  const newest = new Map<string, { result: VerificationResult; at: string }>();
  for (const jobId of jobIds) {
    const at = times.get(jobId) ?? new Date(0).toISOString();
    for (const result of await results(jobId)) newest.set(result.email, { result, at });
  }
  const reuse: Reuse = { again: [], reused: 0 };
  for (const [email, { result, at }] of newest) {
    if (result.nextAttemptAt !== undefined && isTemporary(result)) continue;
    if (result.result === 'unknown' || now - Date.parse(at) > maxAgeMs) {
      reuse.again.push(email);
      continue;
    }
    reuse.reused += 1;
    if (reuse.oldest === undefined || at < reuse.oldest) reuse.oldest = at;
  }
  return reuse;
}

/** "reused 120 results of an earlier run of list.csv, the oldest 3h 5m old (--max-age 30d)". */
export function reuseNote(reuse: Reuse, list: string, maxAge: string, now = Date.now()): string {
  const age = reuse.oldest === undefined ? '' : `, the oldest ${duration(now - Date.parse(reuse.oldest))} old`;
  return `reused ${counted(reuse.reused, 'result')} of an earlier run of ${list}${age} (--max-age ${maxAge})`;
}
