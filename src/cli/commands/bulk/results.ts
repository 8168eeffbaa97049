import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { ApiClient } from '../../../client/api-client.js';
import { openListSource, type ListSource } from '../../../csv/source.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { createSession, type Session } from '../../session.js';
import { fetchResults, Interruption, jobsNamed, requireCompleted, waitForJobs } from './jobs.js';
import { planOutput, resumeCommand, writeOutput, type OutputFlags, type OutputPlan } from './output.js';
import { counted } from './progress.js';
import { BulkState } from './state.js';

interface ResultsFlags extends OutputFlags {
  input?: string;
  column?: string;
  wait?: boolean;
}

export interface Delivery {
  session: Session;
  client: ApiClient;
  interruption: Interruption;
  jobIds: string[];
  plan: OutputPlan;
  source?: ListSource;
  wait: boolean;
}

/**
 * Waits for the jobs (with --wait) or insists they are done (exit 8), then writes their results,
 * merged into the source list when there is one. Ctrl-C on the way is exit 130 with the command
 * that picks up where this one stopped.
 */
export async function deliverResults({ session, client, interruption, jobIds, plan, source, wait }: Delivery): Promise<void> {
  const { io } = session;
  const resume = resumeCommand(jobIds, plan.flags);
  const written = await interruption.during(
    async () => {
      if (jobIds.length > 0 && wait) await waitForJobs(client, jobIds, { io, signal: interruption.signal });
      else if (jobIds.length > 0) await requireCompleted(client, jobIds, resume);
      const results = await fetchResults(client, jobIds);
      return writeOutput(plan, io, { results, source, signal: interruption.signal });
    },
    () => new InterruptedError(`interrupted; the service goes on with ${jobsNamed(jobIds)}`, `resume with: ${resume}`),
  );
  if (plan.path !== undefined) session.notice(`wrote ${counted(written, plan.format === 'csv' ? 'row' : 'result')} to ${plan.path}`);
}

/**
 * The list to merge into: `--input`, else the one this CLI recorded when it submitted the jobs.
 * Jobs it does not know, or a list that has gone, give the plain `email,result,...` output.
 */
async function sourceFor(jobIds: string[], flags: ResultsFlags, session: Session): Promise<ListSource | undefined> {
  if (flags.input !== undefined) return openListSource(resolve(flags.input), { label: flags.input, column: flags.column });
  const state = BulkState.open(session.env);
  const records = await Promise.all(jobIds.map((id) => state.findByJob(id)));
  if (records.some((record) => record === undefined)) return undefined;
  const submissions = new Map(records.map((record) => [record!.id, record!]));
  if (new Set([...submissions.values()].map((each) => each.source)).size > 1) {
    throw new UsageError('these jobs come from different lists', 'fetch each list\'s jobs separately, or name one list with --input');
  }
  const submission = records[0]!;
  const allJobs = [...submissions.values()].flatMap((each) => each.chunks.flatMap((chunk) => (chunk.jobId ? [chunk.jobId] : [])));
  const missing = allJobs.filter((id) => !jobIds.includes(id));
  if (missing.length > 0) session.notice(`${submission.label} also went to ${jobsNamed(missing)}; only the rows of the jobs named are written`);
  if (!existsSync(submission.source)) {
    session.warn(`${submission.label} (${submission.source}) is gone; writing the results without merging them into it`);
    return undefined;
  }
  return openListSource(submission.source, { label: submission.label, column: flags.column ?? submission.column });
}

export async function runBulkResults(jobIds: string[], command: Command): Promise<void> {
  const flags = command.optsWithGlobals<ResultsFlags>();
  const plan = planOutput(flags);
  const interruption = new Interruption();
  const session = createSession(command, { signal: interruption.signal });
  try {
    const client = session.authenticatedClient();
    const source = await sourceFor(jobIds, flags, session);
    await deliverResults({ session, client, interruption, jobIds, plan, source, wait: flags.wait === true });
  } finally {
    await session.close();
  }
}
