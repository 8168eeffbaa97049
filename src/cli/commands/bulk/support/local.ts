import { createHash } from 'node:crypto';
import type { ListSource } from '../../../../csv/source.js';
import { isTemporary } from '../../../../engine/core/retry-schedule.js';
import { VERDICTS } from '../../../../engine/core/types.js';
import { privateLocalDataDir } from '../../../local-service/data-dir.js';
import { LOCAL_POLL_MS, openLocalJobs, type LocalJobs } from '../../../local-service/local-jobs.js';
import { resolvedEngineOptions, type EngineFlags } from '../../../options/engine-flags.js';
import { InterruptedError } from '../../../output/errors.js';
import { enforceFailOn, type FailOn } from '../../../output/fail-on.js';
import { counted } from '../../../output/format.js';
import type { Session } from '../../../session/session.js';
import { Interruption } from './jobs.js';
import { reuseNote } from '../../../local-service/local-reuse.js';
import { readRuns, recordRun } from './local-runs.js';
import { cannotVerify, unverifiableOutcome, shellQuote, writeOutput, type OutputPlan } from './output.js';
import { startProgress, tally } from './progress.js';

/**
 * `bulk submit FILE --local`: the service's job machinery in this process, without HTTP
 * (docs/architecture.md "The CLI", local-service/local-jobs.ts). The list becomes a job in the
 * embedded store of a data dir of the CLI's own (never the service's unless told), a job runner
 * with the engine works that job alone, and the results are merged back as through a service.
 * Because the work is in the store, an interrupted run resumes: the same command on the same list
 * finds its job (by the list's content) and goes on where it stopped.
 */

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
  failOn: FailOn;
  /** `--fresh`: a new job, nothing of an earlier run of the list reused. */
  fresh?: boolean;
  /** `--settle-within`, in seconds: the new jobs' settleWithin. */
  settleWithinSeconds?: number;
  /** `--max-age` as given, and in ms: how old a reused result of an earlier run may be. */
  maxAge: { raw: string; ms: number };
  /** `--sandbox`: sandbox jobs (docs/api.md "Sandbox"), answered by local part, no server asked. */
  sandbox?: boolean;
  /** The command line to run again to resume, as the user typed it. */
  argv: string[];
  /** `--evidence-window`: how old the local account's evidence may be to decide a verdict (0: none). */
  evidenceWindowMs: number;
}

/** The jobs of a list: the whole list's first, then those that asked again what it could not verify. */
interface ListJobs {
  jobIds: string[];
  /** Found from an earlier run of the same list (not made now). */
  resumed: boolean;
  /** On a resumed run: the answered addresses to ask again (unknown, or older than --max-age). */
  again: string[];
}

/**
 * The jobs for this list and these addresses: those a run of the same list made before, or a new
 * one. `--fresh` always makes a new one: nothing of an earlier run is reused. Of an earlier run, only
 * final verdicts within --max-age are reused (said, with the oldest's age); when none is, the list
 * starts afresh in a new job, so that a nightly run's chain of jobs does not grow without end.
 */
async function jobsFor(local: LocalJobs, session: Session, dataDir: string, list: string, addresses: string[], run: LocalRun): Promise<ListJobs> {
  const digest = createHash('sha256').update(addresses.join('\n')).digest('hex');
  const sandbox = run.sandbox ?? false;
  // A sandbox run of a list is recorded apart: a later real run of it must not resume the sandbox's answers.
  const runKey = sandbox ? `${list} (sandbox)` : list;
  const before = (await readRuns(dataDir))[runKey];
  if (before?.digest === digest && !run.fresh) {
    const jobIds = [before.jobId, ...(before.retries ?? [])];
    const found = await Promise.all(jobIds.map((id) => local.job(id)));
    if (found.every((job) => job?.sandbox === sandbox)) {
      const reuse = await local.reuse(jobIds, run.maxAge.ms);
      if (reuse.reused > 0) session.notice(reuseNote(reuse, list, run.maxAge.raw));
      const unfinished = found.some((job) => job!.status !== 'completed');
      if (reuse.reused > 0 || unfinished) {
        for (const id of jobIds) local.work(id);
        return { jobIds, resumed: true, again: reuse.again };
      }
      session.notice(askingAgainNote(reuse.again.length, run.maxAge.raw));
    }
  }
  if (before && before.digest !== digest) session.notice(`${list} changed since its last run (${before.at}): starting a new job`);
  else if (before && run.fresh) session.notice(`--fresh: asking every address of ${list} again, in a new job`);
  const jobId = await local.newJob(addresses, { settleWithinSeconds: run.settleWithinSeconds, sandbox });
  await recordRun(dataDir, runKey, { digest, jobId });
  return { jobIds: [jobId], resumed: false, again: [] };
}

/** "asking again 2 addresses: unknown before, or verified longer ago than --max-age (30d)". */
function askingAgainNote(count: number, maxAge: string): string {
  return `asking again ${counted(count, 'address', 'addresses')}: unknown before, or verified longer ago than --max-age (${maxAge})`;
}

/** What a run that ended with temporary answers says of them: unknown for lack of time, not for their mailbox. */
function unsettledNote(count: number, settleWithinSeconds: number | undefined): string {
  const why = settleWithinSeconds === undefined ? 'after the last try of the retry schedule' : `when --settle-within ran out (${settleWithinSeconds} s)`;
  return `${counted(count, 'address', 'addresses')} settled unknown for lack of time: ${count === 1 ? 'its' : 'their'} mail servers still answered "try again later" (greylisting, throttling) ${why}`;
}

/**
 * On a resumed run, what an earlier run left unknown (this machine's network may be fixed since, a
 * mail host may answer now) or verified longer ago than --max-age is asked again, once, in a job of
 * its own whose results win. Answers the chain of jobs to read results from.
 */
async function askAgain(
  local: LocalJobs,
  session: Session,
  dataDir: string,
  list: string,
  jobs: ListJobs,
  maxAge: string,
  signal: AbortSignal,
): Promise<string[]> {
  if (jobs.again.length === 0) return jobs.jobIds;
  session.notice(askingAgainNote(jobs.again.length, maxAge));
  const retry = await local.newJob(jobs.again);
  const before = (await readRuns(dataDir))[list]!;
  await recordRun(dataDir, list, { digest: before.digest, jobId: before.jobId, retries: [...(before.retries ?? []), retry] });
  await waitForJobs(local, [retry], session, false, signal);
  return [...jobs.jobIds, retry];
}

/** Waits for the jobs with a progress line; none when they are done already (`quietWhenDone`), as a resumed finished run is. */
async function waitForJobs(
  local: LocalJobs,
  jobIds: string[],
  session: Session,
  resumed: boolean,
  signal: AbortSignal,
  { quietWhenDone = false } = {},
): Promise<void> {
  const done = async () => (await Promise.all(jobIds.map((id) => local.job(id)))).every((job) => job?.status === 'completed');
  if (quietWhenDone && (await done())) return;
  const progress = await startProgress(session.io, resumed ? 'resuming' : 'verifying', { lines: true, ctrlC: 'Ctrl-C stops; the same command resumes' });
  try {
    for (;;) {
      const jobs = await Promise.all(jobIds.map(async (id) => (await local.job(id))!));
      progress.update(tally(jobs));
      if (jobs.every((job) => job.status === 'completed')) return;
      if (signal.aborted) throw signal.reason;
      await new Promise((resolve) => setTimeout(resolve, LOCAL_POLL_MS));
    }
  } finally {
    progress.stop();
  }
}

export async function runLocalSubmit(run: LocalRun): Promise<void> {
  const { session, plan, source, addresses } = run;
  const engine = await resolvedEngineOptions(run.engine, session.env);
  const dataDir = await privateLocalDataDir(run.dataDir, session.env, (message) => session.notice(message));
  const local = await openLocalJobs({ dataDir, engine, evidenceWindowMs: run.evidenceWindowMs, warn: (message) => session.warn(message) });
  const interruption = new Interruption();
  try {
    const list = run.file === '-' ? 'stdin' : source.path;
    const jobs = await jobsFor(local, session, dataDir, list, addresses, run);
    const resume = run.argv.map(shellQuote).join(' ');
    const chain = await interruption.during(
      async () => {
        await waitForJobs(local, jobs.jobIds, session, jobs.resumed, interruption.signal, { quietWhenDone: true });
        return await askAgain(local, session, dataDir, list, jobs, run.maxAge.raw, interruption.signal);
      },
      () => new InterruptedError(`interrupted; what was verified is kept in ${dataDir}`, `resume with: ${resume}`),
      (line) => session.notice(line),
    );
    const results = await local.results(chain);
    const summary = await writeOutput(plan, session.io, { results, source });
    const counts = new Map<string, number>();
    for (const result of results.values()) counts.set(result.result, (counts.get(result.result) ?? 0) + 1);
    session.notice(`${counted(addresses.length, 'address', 'addresses')}: ${VERDICTS.map((verdict) => `${counts.get(verdict) ?? 0} ${verdict}`).join(', ')}`);
    const unsettled = [...results.values()].filter(isTemporary).length;
    if (unsettled > 0) session.notice(unsettledNote(unsettled, run.settleWithinSeconds));
    if (plan.path !== undefined) session.notice(`wrote ${counted(summary.written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
    if (summary.unverifiable > 0) throw cannotVerify(summary.unverifiable, results, unverifiableOutcome(plan, summary));
    enforceFailOn(results.values(), run.failOn);
  } finally {
    await local.close();
  }
}
