import { createHash } from 'node:crypto';
import { ResultIndex } from '../../../../csv/result-index.js';
import type { ListSource } from '../../../../csv/source.js';
import { selectorsOf, type ResultSelector } from '../../../../engine/result-filter.js';
import { VERIFIER_CONDITIONS } from '../../../../engine/core/reason-codes.js';
import { isTemporary } from '../../../../engine/core/retry-schedule.js';
import { VERDICTS, type VerificationResult } from '../../../../engine/core/types.js';
import type { JobRunner } from '../../../../server/jobs/runner.js';
import { StoreError, type Holder, type JobDetails, type Store, type User } from '../../../../server/store/store.js';
import { privateLocalDataDir } from '../../../local-service/data-dir.js';
import { resolvedEngineOptions, type EngineFlags } from '../../../options/engine-flags.js';
import { InterruptedError, VerdictMatchedError } from '../../../output/errors.js';
import { counted } from '../../../output/format.js';
import type { Session } from '../../../session/session.js';
import { Interruption } from './jobs.js';
import { readRuns, recordRun } from './local-runs.js';
import { cannotVerify, unverifiableOutcome, shellQuote, writeOutput, type OutputPlan } from './output.js';
import { startProgress, tally } from './progress.js';

/**
 * `bulk submit FILE --local`: the service's job machinery in this process, without HTTP
 * (docs/architecture.md "The CLI"). The list becomes a job in the embedded store of a data dir of
 * the CLI's own (never the service's unless told), a job runner with the engine works that job
 * alone, and the results are merged back as through a service. Because the work is in the store, an
 * interrupted run resumes: the same command on the same list finds its job (by the list's content)
 * and goes on where it stopped.
 */

/** The account local jobs belong to in the data dir's store: credited with exactly what each job costs, so its ledger adds up. */
const LOCAL_ACCOUNT = 'local-cli@mailverify.invalid';
const POLL_MS = 200;
const PAGE = 5_000;

export interface LocalRun {
  session: Session;
  engine: EngineFlags;
  /** --data-dir: where the work is kept. */
  dataDir?: string;
  plan: OutputPlan;
  source: ListSource;
  /** The list as given on the command line (or '-'). */
  file: string;
  addresses: string[];
  failOn: ResultSelector[];
  /** `--fresh`: a new job, nothing of an earlier run of the list reused. */
  fresh?: boolean;
  /** `--settle-within`, in seconds: the new jobs' settleWithin. */
  settleWithinSeconds?: number;
  /** `--sandbox`: sandbox jobs (docs/api.md "Sandbox"), answered by local part, no server asked. */
  sandbox?: boolean;
  /** The command line to run again to resume, as the user typed it. */
  argv: string[];
}

/** The account local jobs belong to, made on the first run (by whichever of two runs at once gets there first). */
async function localAccount(store: Store): Promise<User> {
  const found = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
  if (found) return found;
  try {
    return await store.accounts.createUser({ email: LOCAL_ACCOUNT, passwordHash: null, balance: 0, rateLimit: 1, rateWindowSeconds: 1 });
  } catch (error) {
    if (!(error instanceof StoreError && error.code === 'user_exists')) throw error;
    return (await store.accounts.findUserByEmail(LOCAL_ACCOUNT))!;
  }
}

/** The jobs of a list: the whole list's first, then those that asked again what it could not verify. */
interface LocalJobs {
  jobIds: string[];
  /** Found from an earlier run of the same list (not made now). */
  resumed: boolean;
}

/** A job for these addresses in the local account, credited with exactly what it costs (a sandbox job costs nothing). */
async function newJob(store: Store, addresses: string[], details: JobDetails): Promise<string> {
  const user = await localAccount(store);
  if (!details.sandbox) await store.accounts.grantCredits(user.id, addresses.length);
  const created = await store.jobs.createJob(user.id, addresses, undefined, details);
  if (!created.ok) throw new Error(`the local job was not created: ${created.balance} credits of ${created.required}`);
  return created.jobId;
}

/**
 * The jobs for this list and these addresses: those a run of the same list made before, or a new
 * one. `--fresh` always makes a new one: nothing of an earlier run is reused.
 */
async function jobsFor(
  store: Store,
  session: Session,
  dataDir: string,
  list: string,
  addresses: string[],
  { fresh, settleWithinSeconds, sandbox = false }: Pick<LocalRun, 'fresh' | 'settleWithinSeconds' | 'sandbox'>,
): Promise<LocalJobs> {
  const digest = createHash('sha256').update(addresses.join('\n')).digest('hex');
  // A sandbox run of a list is recorded apart: a later real run of it must not resume the sandbox's answers.
  const runKey = sandbox ? `${list} (sandbox)` : list;
  const before = (await readRuns(dataDir))[runKey];
  if (before?.digest === digest && !fresh) {
    const user = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
    const jobIds = [before.jobId, ...(before.retries ?? [])];
    const found = user && (await Promise.all(jobIds.map((id) => store.jobs.getJob(user.id, id))));
    if (found?.every((job) => job?.sandbox === sandbox)) return { jobIds, resumed: true };
  }
  if (before && before.digest !== digest) session.notice(`${list} changed since its last run (${before.at}): starting a new job`);
  else if (before && fresh) session.notice(`--fresh: asking every address of ${list} again, in a new job`);
  const jobId = await newJob(store, addresses, { settleWithinSeconds, sandbox });
  await recordRun(dataDir, runKey, { digest, jobId });
  return { jobIds: [jobId], resumed: false };
}

/** What a run that ended with temporary answers says of them: unknown for lack of time, not for their mailbox. */
function unsettledNote(count: number, settleWithinSeconds: number | undefined): string {
  const why = settleWithinSeconds === undefined ? 'after the last try of the retry schedule' : `when --settle-within ran out (${settleWithinSeconds} s)`;
  return `${counted(count, 'address', 'addresses')} settled unknown for lack of time: ${count === 1 ? 'its' : 'their'} mail servers still answered "try again later" (greylisting, throttling) ${why}`;
}

/** Addresses whose newest result is unknown for this machine's own condition (VERIFIER_CONDITIONS), not the address's. */
function unverifiableIn(results: ResultIndex): string[] {
  return [...results.values()].filter((result) => VERIFIER_CONDITIONS.has(result.reasonCode)).map((result) => result.email);
}

/**
 * On a resumed run, what an earlier run could not verify because of this machine (no port 25, a
 * lying resolver, a proxy down) is asked again, once, in a job of its own whose results win: the
 * network may be fixed since. Answers the chain of jobs to read results from.
 */
async function askAgain(
  store: Store,
  session: Session,
  dataDir: string,
  list: string,
  jobs: LocalJobs,
  stale: Set<string>,
  work: (jobId: string) => void,
  signal: AbortSignal,
): Promise<string[]> {
  if (stale.size === 0) return jobs.jobIds;
  const again = unverifiableIn(await resultsOf(store, jobs.jobIds)).filter((email) => stale.has(email));
  if (again.length === 0) return jobs.jobIds;
  session.notice(`asking again ${counted(again.length, 'address', 'addresses')} this machine could not verify before`);
  const retry = await newJob(store, again, {});
  work(retry);
  const before = (await readRuns(dataDir))[list]!;
  await recordRun(dataDir, list, { digest: before.digest, jobId: before.jobId, retries: [...(before.retries ?? []), retry] });
  await waitForJobs(store, [retry], session, false, signal);
  return [...jobs.jobIds, retry];
}

/** Waits for the jobs with a progress line; none when they are done already (`quietWhenDone`), as a resumed finished run is. */
async function waitForJobs(
  store: Store,
  jobIds: string[],
  session: Session,
  resumed: boolean,
  signal: AbortSignal,
  { quietWhenDone = false } = {},
): Promise<void> {
  const user = (await store.accounts.findUserByEmail(LOCAL_ACCOUNT))!;
  const done = async () => (await Promise.all(jobIds.map((id) => store.jobs.getJob(user.id, id)))).every((job) => job?.status === 'completed');
  if (quietWhenDone && (await done())) return;
  const progress = await startProgress(session.io, resumed ? 'resuming' : 'verifying', { lines: true, ctrlC: 'Ctrl-C stops; the same command resumes' });
  try {
    for (;;) {
      const jobs = await Promise.all(jobIds.map(async (id) => (await store.jobs.getJob(user.id, id))!));
      progress.update(tally(jobs));
      if (jobs.every((job) => job.status === 'completed')) return;
      if (signal.aborted) throw signal.reason;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    progress.stop();
  }
}

/** The results of a chain of jobs, a later job's result for an address over an earlier one's. */
async function resultsOf(store: Store, jobIds: string[]): Promise<ResultIndex> {
  const index = new ResultIndex();
  for (const jobId of jobIds) {
    const results: VerificationResult[] = [];
    for (let after = -1; ;) {
      const page = await store.jobs.readResults(jobId, { after, limit: PAGE });
      for (const row of page) results.push(JSON.parse(row.json) as VerificationResult);
      if (page.length < PAGE) break;
      after = page.at(-1)!.position;
    }
    index.add(results);
  }
  return index;
}

export async function runLocalSubmit(run: LocalRun): Promise<void> {
  const { session, plan, source, addresses } = run;
  const engine = await resolvedEngineOptions(run.engine, session.env);
  const dataDir = await privateLocalDataDir(run.dataDir, session.env, (message) => session.notice(message));
  const [{ openStore }, { createVerifier }, { startJobRunner }] = await Promise.all([
    import('../../../../server/store/open/open-store.js'),
    import('../../../../engine/index.js'),
    import('../../../../server/jobs/runner.js'),
  ]);
  const store = await openStore({ dataDir });
  let runner: JobRunner | undefined;
  let holder: Holder | undefined;
  const interruption = new Interruption();
  try {
    const list = run.file === '-' ? 'stdin' : source.path;
    const jobs = await jobsFor(store, session, dataDir, list, addresses, run);
    const stale = new Set(jobs.resumed ? unverifiableIn(await resultsOf(store, jobs.jobIds)) : []);
    holder = await store.holders.join();
    const log = { info: () => undefined, error: (details: object, message: string) => session.warn(message) };
    // This run's job alone: whatever else the store holds (another run's list, a service's jobs in a
    // data dir given by mistake) is not this command's to verify, with its flags, outside any limits.
    // Read at each claim: a job that asks again is added to it.
    const working = [...jobs.jobIds];
    runner = startJobRunner({
      queue: store.work,
      holder: holder.id,
      verifier: createVerifier(engine),
      retryScheduleMs: engine.retryScheduleMs,
      log,
      idlePollMs: POLL_MS,
      onlyJobs: working,
    });
    const resume = run.argv.map(shellQuote).join(' ');
    const chain = await interruption.during(
      async () => {
        await waitForJobs(store, jobs.jobIds, session, jobs.resumed, interruption.signal, { quietWhenDone: true });
        return await askAgain(store, session, dataDir, list, jobs, stale, (retry) => working.push(retry), interruption.signal);
      },
      () => new InterruptedError(`interrupted; what was verified is kept in ${dataDir}`, `resume with: ${resume}`),
      (line) => session.notice(line),
    );
    const results = await resultsOf(store, chain);
    const summary = await writeOutput(plan, session.io, { results, source });
    const counts = new Map<string, number>();
    for (const result of results.values()) counts.set(result.result, (counts.get(result.result) ?? 0) + 1);
    session.notice(`${counted(addresses.length, 'address', 'addresses')}: ${VERDICTS.map((verdict) => `${counts.get(verdict) ?? 0} ${verdict}`).join(', ')}`);
    const unsettled = [...results.values()].filter(isTemporary).length;
    if (unsettled > 0) session.notice(unsettledNote(unsettled, run.settleWithinSeconds));
    if (plan.path !== undefined) session.notice(`wrote ${counted(summary.written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
    if (summary.unverifiable > 0) throw cannotVerify(summary.unverifiable, results, unverifiableOutcome(plan, summary));
    const matched = new Set([...results.values()].flatMap((result) => selectorsOf(result).filter((selector) => run.failOn.includes(selector))));
    if (matched.size > 0) throw new VerdictMatchedError([...matched]);
  } finally {
    await runner?.stop();
    await holder?.leave();
    await store.close();
  }
}
