import type { JobList } from '../../../client/types.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { UsageError } from '../../output/errors.js';
import type { Io } from '../../output/io.js';
import { textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { withClient } from '../../session/with-client.js';
import { fraction } from './support/progress.js';

/** `bulk list`'s options, checked. */
export interface ListOptions {
  program: ProgramOptions;
  /** At most this many jobs, newest first. */
  limit: number;
}

const DEFAULT_LIMIT = 20;
/** The most the service gives in one page: a longer list is asked for page by page. */
const PAGE = 100;

export function parse(parsed: ParsedCommand): ListOptions {
  const raw = textFlag(parsed.flags, 'limit');
  const limit = raw === undefined ? DEFAULT_LIMIT : Number(raw);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number above 0, got "${raw}"`);
  return { program: programOptions(parsed.program), limit };
}

type ListedJob = JobList['jobs'][number];

/** "2026-11-29 07:56": the minute is enough to tell a night's job from the next's. */
const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function describe(job: ListedJob): string {
  const name = job.name === undefined ? '-' : terminalSafe(job.name);
  return `${terminalSafe(job.job_id)}  ${name}  ${job.status}  ${fraction(job.processed, job.total)}  ${minute(job.createdAt)}\n`;
}

/**
 * `mailverify bulk list`: this account's jobs, newest first (id, name, status, processed/total,
 * created), so that a job id lost with a terminal's scrollback is found again.
 */
export async function run({ program, limit }: ListOptions, io: Io): Promise<void> {
  await withClient(program, io, async (client) => {
    const jobs: ListedJob[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listJobs({ limit: Math.min(PAGE, limit - jobs.length), cursor });
      jobs.push(...page.jobs);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined && jobs.length < limit);
    if (io.json) io.stdout.write(`${toSafeJson(jobs)}\n`);
    else io.stdout.write(jobs.map(describe).join(''));
  });
}
