import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { ResultIndex } from '../../../csv/result-index.js';
import type { ListSource } from '../../../csv/source.js';
import { selectorsOf, type ResultSelector } from '../../../engine/result-filter.js';
import { VERDICTS, type VerificationResult } from '../../../engine/types.js';
import type { JobRunner } from '../../../server/jobs/runner.js';
import { StoreError, type Holder, type Store, type User } from '../../../server/store/store.js';
import { privateLocalDataDir } from '../../data-dir.js';
import { resolvedEngineOptions } from '../../engine-flags.js';
import { InterruptedError, VerdictMatchedError } from '../../errors.js';
import { counted } from '../../format.js';
import type { Session } from '../../session.js';
import { Interruption } from './jobs.js';
import { readRuns, recordRun } from './local-runs.js';
import { cannotVerify, shellQuote, writeOutput, type OutputPlan } from './output.js';
import { startProgress } from './progress.js';

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
  command: Command;
  plan: OutputPlan;
  source: ListSource;
  /** The list as given on the command line (or '-'). */
  file: string;
  addresses: string[];
  failOn: ResultSelector[];
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

/** The job for this list and these addresses: the one a run of the same list made before, or a new one. */
async function jobFor(store: Store, session: Session, dataDir: string, list: string, addresses: string[]): Promise<{ jobId: string; resumed: boolean }> {
  const digest = createHash('sha256').update(addresses.join('\n')).digest('hex');
  const before = (await readRuns(dataDir))[list];
  if (before?.digest === digest) {
    const user = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
    const job = user && (await store.jobs.getJob(user.id, before.jobId));
    if (job) return { jobId: job.id, resumed: true };
  }
  if (before) session.notice(`${list} changed since its last run (${before.at}): starting a new job`);
  const user = await localAccount(store);
  await store.accounts.grantCredits(user.id, addresses.length);
  const created = await store.jobs.createJob(user.id, addresses);
  if (!created.ok) throw new Error(`the local job was not created: ${created.balance} credits of ${created.required}`);
  await recordRun(dataDir, list, digest, created.jobId);
  return { jobId: created.jobId, resumed: false };
}

async function waitForJob(store: Store, jobId: string, session: Session, resumed: boolean, signal: AbortSignal): Promise<void> {
  const user = (await store.accounts.findUserByEmail(LOCAL_ACCOUNT))!;
  const progress = await startProgress(session.io, resumed ? 'resuming' : 'verifying', { lines: true, ctrlC: 'Ctrl-C stops; the same command resumes' });
  try {
    for (;;) {
      const job = (await store.jobs.getJob(user.id, jobId))!;
      progress.update(job.processed, job.total);
      if (job.status === 'completed') return;
      if (signal.aborted) throw signal.reason;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    progress.stop();
  }
}

async function resultsOf(store: Store, jobId: string): Promise<ResultIndex> {
  const results: VerificationResult[] = [];
  for (let after = -1; ; ) {
    const page = await store.jobs.readResults(jobId, { after, limit: PAGE });
    for (const row of page) results.push(JSON.parse(row.json) as VerificationResult);
    if (page.length < PAGE) return new ResultIndex().add(results);
    after = page.at(-1)!.position;
  }
}

export async function runLocalSubmit(run: LocalRun): Promise<void> {
  const { session, command, plan, source, addresses } = run;
  const engine = await resolvedEngineOptions(command, session.env);
  const dataDir = await privateLocalDataDir(command.optsWithGlobals<{ dataDir?: string }>().dataDir, session.env, (message) => session.notice(message));
  const [{ openStore }, { createVerifier }, { startJobRunner }] = await Promise.all([
    import('../../../server/store/open-store.js'),
    import('../../../engine/index.js'),
    import('../../../server/jobs/runner.js'),
  ]);
  const store = await openStore({ dataDir });
  let runner: JobRunner | undefined;
  let holder: Holder | undefined;
  const interruption = new Interruption();
  try {
    const list = run.file === '-' ? 'stdin' : source.path;
    const { jobId, resumed } = await jobFor(store, session, dataDir, list, addresses);
    holder = await store.holders.join();
    const log = { info: () => undefined, error: (details: object, message: string) => session.warn(message) };
    // This run's job alone: whatever else the store holds (another run's list, a service's jobs in a
    // data dir given by mistake) is not this command's to verify, with its flags, outside any limits.
    runner = startJobRunner({ queue: store.work, holder: holder.id, verifier: createVerifier(engine), log, idlePollMs: POLL_MS, onlyJobs: [jobId] });
    const resume = run.argv.map(shellQuote).join(' ');
    await interruption.during(
      () => waitForJob(store, jobId, session, resumed, interruption.signal),
      () => new InterruptedError(`interrupted; what was verified is kept in ${dataDir}`, `resume with: ${resume}`),
    );
    const results = await resultsOf(store, jobId);
    const summary = await writeOutput(plan, session.io, { results, source });
    const counts = new Map((await store.jobs.verdictCounts(jobId)).map((each) => [each.verdict, each.count]));
    session.notice(`${counted(addresses.length, 'address', 'addresses')}: ${VERDICTS.map((verdict) => `${counts.get(verdict) ?? 0} ${verdict}`).join(', ')}`);
    if (plan.path !== undefined) session.notice(`wrote ${counted(summary.written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
    if (summary.unverifiable > 0) throw cannotVerify(summary.unverifiable, results, plan.path ? `${plan.path} was written anyway (--force)` : 'they are written above');
    const matched = new Set([...results.values()].flatMap((result) => selectorsOf(result).filter((selector) => run.failOn.includes(selector))));
    if (matched.size > 0) throw new VerdictMatchedError([...matched]);
  } finally {
    await runner?.stop();
    await holder?.leave();
    await store.close();
  }
}
