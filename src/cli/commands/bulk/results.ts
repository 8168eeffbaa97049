import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../../../client/api-client.js';
import { changedSince } from '../../../csv/fingerprint.js';
import { openListSource, type ListSource } from '../../../csv/source.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { createSession, type Session } from '../../session.js';
import { fetchResults, Interruption, jobsNamed, requireCompleted, waitForJobs } from './jobs.js';
import { cannotVerify, unverifiableOutcome, planOutput, resumeCommand, writeOutput, type OutputFlags, type OutputPlan } from './output.js';
import { counted } from '../../format.js';
import { BulkState } from './state.js';

interface ResultsFlags extends OutputFlags {
  input?: string;
  column?: string;
  wait?: boolean;
  strict?: boolean;
}

export interface Delivery {
  session: Session;
  client: ApiClient;
  interruption: Interruption;
  jobIds: string[];
  plan: OutputPlan;
  source?: ListSource;
  /** Only some of the list's jobs are named: rows of the others are expected to have no result. */
  partial?: boolean;
  /** Refuse (exit 2) a merge into a list with rows in none of the jobs. */
  strict?: boolean;
  wait: boolean;
}

/** "lines 4, 9 and 12", "lines 4, 9, 12, 20, 31 and 7 more". */
function linesNamed(lines: number[], count: number): string {
  const shown = lines.join(', ');
  if (count > lines.length) return `lines ${shown} and ${count - lines.length} more`;
  return lines.length === 1 ? `line ${shown}` : `lines ${shown.replace(/, (\d+)$/, ' and $1')}`;
}

/**
 * Waits for the jobs (with --wait) or insists they are done (exit 8), then writes their results,
 * merged into the source list when there is one. Ctrl-C on the way is exit 130 with the command
 * that picks up where this one stopped.
 */
export async function deliverResults({ session, client, interruption, jobIds, plan, source, partial, strict, wait }: Delivery): Promise<void> {
  const { io } = session;
  const resume = resumeCommand(jobIds, plan.flags);
  const waiting = { io, signal: interruption.signal, outageMs: plan.outageMs, resume };
  const delivered = await interruption.during(
    async () => {
      if (jobIds.length > 0 && wait) await waitForJobs(client, jobIds, waiting);
      else if (jobIds.length > 0) await requireCompleted(client, jobIds, resume);
      const results = await fetchResults(client, jobIds, wait ? waiting : undefined);
      return { results, written: await writeOutput(plan, io, { results, source, signal: interruption.signal, strict: strict && source !== undefined && !partial }) };
    },
    () => new InterruptedError(`interrupted; the service goes on with ${jobsNamed(jobIds)}`, `resume with: ${resume}`),
  );
  const { results, written: summary } = delivered;
  if (plan.path !== undefined) session.notice(`wrote ${counted(summary.written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
  if (summary.unverifiable > 0) throw cannotVerify(summary.unverifiable, results, unverifiableOutcome(plan, summary));
  if (source && summary.unmatched > 0) {
    const kept = plan.format === 'csv' && plan.only === undefined ? 'kept with empty verdict columns' : 'left out';
    const message = `${counted(summary.unmatched, 'row')} of ${source.label} (${linesNamed(summary.unmatchedLines, summary.unmatched)}) ${summary.unmatched === 1 ? 'is' : 'are'} in none of the jobs: ${kept}`;
    if (partial) session.notice(message);
    else session.warn(message);
  }
}

/** The list to merge into, and whether only some of its jobs are named. */
interface SourceChoice {
  source?: ListSource;
  partial?: boolean;
}

/**
 * The list to merge into: `--input`, else the one this CLI recorded when it submitted the jobs.
 * Jobs it does not know, or a list that has gone, give the plain `email,result,...` output. A list
 * that changed since it was submitted is still merged (with a warning; rows no job covers keep
 * their place with empty verdict cells), unless --strict makes that an error.
 */
async function sourceFor(jobIds: string[], flags: ResultsFlags, session: Session): Promise<SourceChoice> {
  if (flags.input !== undefined) return { source: await openListSource(resolve(flags.input), { label: flags.input, column: flags.column }) };
  const state = BulkState.open(session.env);
  const records = await Promise.all(jobIds.map((id) => state.findByJob(id)));
  if (records.some((record) => record === undefined)) return {};
  const submissions = new Map(records.map((record) => [record!.id, record!]));
  if (new Set([...submissions.values()].map((each) => each.source)).size > 1) {
    throw new UsageError('these jobs come from different lists', 'fetch each list\'s jobs separately, or name one list with --input');
  }
  const submission = records[0]!;
  const allJobs = [...submissions.values()].flatMap((each) => each.chunks.flatMap((chunk) => (chunk.jobId ? [chunk.jobId] : [])));
  const missing = allJobs.filter((id) => !jobIds.includes(id));
  if (missing.length > 0) session.notice(`${submission.label} also went to ${jobsNamed(missing)}; the rows of those jobs get no verdict here`);
  if (!existsSync(submission.source)) {
    session.warn(`${submission.label} (${submission.source}) is gone; writing the results without merging them into it`);
    return {};
  }
  if (submission.fingerprint && (await changedSince(submission.source, submission.fingerprint))) {
    const changed = `${submission.label} changed since it was submitted (${submission.createdAt})`;
    if (flags.strict) throw new UsageError(changed, 'merge it anyway without --strict, or name the list to merge into with --input');
    session.warn(`${changed}; rows that are in none of the jobs keep their place with empty verdict columns`);
  }
  const source = await openListSource(submission.source, { label: submission.label, column: flags.column ?? submission.column });
  return { source, partial: missing.length > 0 };
}

export async function runBulkResults(jobIds: string[], command: Command): Promise<void> {
  // `input` from this command alone: the program's --no-input sets an `input` of its own (true).
  const flags: ResultsFlags = { ...command.optsWithGlobals<ResultsFlags>(), input: command.opts<ResultsFlags>().input };
  const plan = await planOutput(flags);
  const interruption = new Interruption();
  const session = createSession(command, { signal: interruption.signal });
  try {
    const client = session.authenticatedClient();
    const { source, partial } = await sourceFor(jobIds, flags, session);
    await deliverResults({ session, client, interruption, jobIds, plan, source, partial, strict: flags.strict, wait: flags.wait === true });
  } finally {
    await session.close();
  }
}
