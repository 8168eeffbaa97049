import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { changedSince } from '../../../csv/fingerprint.js';
import { openListSource, type ListSource } from '../../../csv/source.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { NO_FAIL_ON, parseFailOn, type FailOn } from '../../output/fail-on.js';
import { outputFlags } from '../../options/output-flags.js';
import { listArg, listFlag, switchFlag, textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { createSession, type Session } from '../../session/session.js';
import { Interruption, jobsNamed } from './support/jobs.js';
import { deliverResults } from './support/delivery.js';
import { planOutput, type OutputPlan } from './support/output.js';
import { BulkState } from './support/state.js';

/** `bulk results`'s options, checked. */
export interface ResultsOptions {
  program: ProgramOptions;
  jobIds: string[];
  plan: OutputPlan;
  /** --input: the list to merge into, instead of the one recorded at submission. */
  input?: string;
  column?: string;
  wait: boolean;
  strict: boolean;
  /** --fail-on: checked once the output is written. */
  failOn: FailOn;
}

/** `bulk results`'s command line as options, or a UsageError. */
export async function parse(parsed: ParsedCommand): Promise<ResultsOptions> {
  const { flags } = parsed;
  const failOn = listFlag(flags, 'failOn');
  return {
    program: programOptions(parsed.program),
    jobIds: listArg(parsed, 0),
    plan: await planOutput(outputFlags(flags)),
    // The command's own --input: the program's --no-input is a flag of the program's, apart.
    input: textFlag(flags, 'input'),
    column: textFlag(flags, 'column'),
    wait: switchFlag(flags, 'wait'),
    strict: switchFlag(flags, 'strict'),
    failOn: failOn === undefined ? NO_FAIL_ON : parseFailOn(failOn),
  };
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
async function sourceFor({ jobIds, ...flags }: ResultsOptions, session: Session): Promise<SourceChoice> {
  if (flags.input !== undefined) return { source: await openListSource(resolve(flags.input), { label: flags.input, column: flags.column }) };
  const state = BulkState.open(session.env);
  const records = await Promise.all(jobIds.map((id) => state.findByJob(id)));
  if (records.some((record) => record === undefined)) return {};
  const submissions = new Map(records.map((record) => [record!.id, record!]));
  if (new Set([...submissions.values()].map((each) => each.source)).size > 1) {
    throw new UsageError('these jobs come from different lists', "fetch each list's jobs separately, or name one list with --input");
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

/** Writes the jobs' results, merged into their list when it is known. */
export async function run(options: ResultsOptions, io: Io): Promise<void> {
  const interruption = new Interruption();
  const session = createSession(options.program, io, { signal: interruption.signal });
  try {
    const client = session.authenticatedClient();
    const { source, partial } = await sourceFor(options, session);
    const { jobIds, plan, strict, wait, failOn } = options;
    await deliverResults({ session, client, interruption, jobIds, plan, source, partial, strict, wait, failOn });
  } finally {
    await session.close();
  }
}
