import { ResultIndex } from '../../csv/result-index.js';
import type { EngineOptions, VerificationResult, Verifier } from '../../engine/core/types.js';
import type { JobRunner } from '../../server/local-run.js';
import type { Holder, JobDetails, JobProgress, Store } from '../../server/store/open/open-store.js';
import { localAccount, withLocalEvidence } from './local-account.js';
import { judgeReuse, type Reuse } from './local-reuse.js';

/**
 * The service's job machinery in this process, without HTTP (docs/architecture.md "The CLI"): the
 * embedded store of a local data dir, the account local jobs belong to, and a job runner with the
 * engine that works only the jobs handed to it. `bulk submit --local` and `mcp --local` both work
 * lists through it.
 */
export interface LocalJobs {
  /** The verifier the runner uses; a caller verifying single addresses shares its caches and limits. */
  verifier: Verifier;
  /** A new job of these (de-duplicated) addresses, credited with exactly its cost (a sandbox job's is none) and worked from now on. */
  newJob(addresses: string[], details?: JobDetails): Promise<string>;
  /** Works a job made earlier (a run resumed). */
  work(jobId: string): void;
  /** The job's progress, or undefined when the local account has no such job. */
  job(jobId: string): Promise<JobProgress | undefined>;
  /** The results of a chain of jobs so far, a later job's result for an address over an earlier one's. */
  results(jobIds: string[]): Promise<ResultIndex>;
  /** What a new run of a list may take from this chain's results: final verdicts within `maxAgeMs` (local-reuse.ts). */
  reuse(jobIds: string[], maxAgeMs: number): Promise<Reuse>;
  /** Stops the runner and closes the store. */
  close(): Promise<void>;
}

/** How often the runner looks for work when it has none, ms. */
export const LOCAL_POLL_MS = 200;
const PAGE = 5_000;

/** Every stored result of a job, page by page. */
async function resultsOfJob(store: Store, jobId: string): Promise<VerificationResult[]> {
  const results: VerificationResult[] = [];
  for (let after = -1; ;) {
    const page = await store.jobs.readResults(jobId, { after, limit: PAGE });
    for (const row of page) results.push(JSON.parse(row.json) as VerificationResult);
    if (page.length < PAGE) return results;
    after = page.at(-1)!.position;
  }
}

async function resultsOf(store: Store, jobIds: string[]): Promise<ResultIndex> {
  const index = new ResultIndex();
  for (const jobId of jobIds) index.add(await resultsOfJob(store, jobId));
  return index;
}

export interface LocalJobsOptions {
  /** A private local data dir (privateLocalDataDir). */
  dataDir: string;
  engine: EngineOptions;
  /** `--evidence-window`: how old the local account's evidence may be to decide a verdict (0: none, and so for `mcp --local`). */
  evidenceWindowMs?: number;
  /** Told what the runner could not do. */
  warn: (message: string) => void;
}

/** Opens the data dir's store and starts a runner that works nothing until a job is handed to it. */
export async function openLocalJobs({ dataDir, engine, evidenceWindowMs = 0, warn }: LocalJobsOptions): Promise<LocalJobs> {
  const [{ openStore }, { createVerifier }, { startLocalRunner }] = await Promise.all([
    import('../../server/store/open/open-store.js'),
    import('../../engine/index.js'),
    import('../../server/local-run.js'),
  ]);
  const store = await openStore({ dataDir });
  let holder: Holder | undefined;
  let runner: JobRunner | undefined;
  try {
    const user = await localAccount(store);
    holder = await store.holders.join();
    const verifier = withLocalEvidence(createVerifier(engine), store, evidenceWindowMs, warn);
    // These jobs alone: whatever else the store holds (another run's list, a service's jobs in a
    // data dir given by mistake) is not this process's to verify, with its flags, outside any limits.
    // Read at each claim, so a job handed over later is worked from then on.
    const working: string[] = [];
    runner = startLocalRunner({
      queue: store.work,
      holder: holder.id,
      verifier,
      retryScheduleMs: engine.retryScheduleMs,
      log: { info: () => undefined, error: (_details: object, message: string) => warn(message) },
      idlePollMs: LOCAL_POLL_MS,
      onlyJobs: working,
    });
    const started = { runner, holder };
    return {
      verifier,
      async newJob(addresses, details = {}) {
        // A sandbox job costs nothing (docs/api.md "Sandbox"): no credits to grant for it.
        if (!details.sandbox) await store.accounts.grantCredits(user.id, addresses.length);
        const created = await store.jobs.createJob(user.id, addresses, undefined, details);
        if (!created.ok) throw new Error(`the local job was not created: ${created.balance} credits of ${created.required}`);
        working.push(created.jobId);
        return created.jobId;
      },
      work: (jobId) => void working.push(jobId),
      job: (jobId) => store.jobs.getJob(user.id, jobId),
      results: (jobIds) => resultsOf(store, jobIds),
      reuse: (jobIds, maxAgeMs) => judgeReuse(store, user.id, jobIds, (jobId) => resultsOfJob(store, jobId), maxAgeMs),
      async close() {
        await started.runner.stop();
        await started.holder.leave();
        await store.close();
      },
    };
  } catch (error) {
    await runner?.stop();
    await holder?.leave();
    await store.close();
    throw error;
  }
}
