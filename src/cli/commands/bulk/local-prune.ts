import type { JobSummary } from '../../../server/store/open/open-store.js';
import { toSafeJson } from '../../../text/sanitize.js';
import { localDataDir } from '../../local-service/data-dir.js';
import { durationMs } from '../../options/engine-flags.js';
import { counted } from '../../output/format.js';
import type { Io } from '../../output/io.js';
import { textFlag, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { forgetRuns } from './support/local-runs.js';

/** `bulk local prune`'s options, checked. */
export interface PruneOptions {
  program: ProgramOptions;
  /** --older-than as given, and in ms. */
  olderThan: { raw: string; ms: number };
  dataDir?: string;
}

const DEFAULT_OLDER_THAN = '30d';
const PAGE = 100;

export function parse(parsed: ParsedCommand): PruneOptions {
  const raw = textFlag(parsed.flags, 'olderThan') ?? DEFAULT_OLDER_THAN;
  return { program: programOptions(parsed.program), olderThan: { raw, ms: durationMs(raw, '--older-than') }, dataDir: textFlag(parsed.flags, 'dataDir') };
}

/**
 * `mailverify bulk local prune`: the local work store keeps every list's addresses and verdicts
 * (so that a run resumes); this deletes the local runs' jobs made longer ago than --older-than, with
 * their addresses and results, and forgets their lists. Only the local account's jobs: a service's
 * data dir given by mistake keeps its customers' jobs.
 */
export async function run({ olderThan, dataDir }: PruneOptions, io: Io): Promise<void> {
  const dir = localDataDir(dataDir, io.env);
  const say = (deleted: number) => {
    if (io.json) io.stdout.write(`${toSafeJson({ deleted, olderThan: olderThan.raw, dataDir: dir })}\n`);
    else if (!io.quiet)
      io.stderr.write(`deleted ${counted(deleted, 'local job')} made more than ${olderThan.raw} ago, with their addresses and results, from ${dir}\n`);
  };
  const [{ openStore }, { LOCAL_ACCOUNT, hasLocalStore }] = await Promise.all([
    import('../../../server/store/open/open-store.js'),
    import('../../local-service/local-account.js'),
  ]);
  // Nothing was ever kept there: nothing to delete, and no store to make for it.
  if (!hasLocalStore(dir)) return say(0);
  const store = await openStore({ dataDir: dir });
  try {
    const user = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
    if (user === undefined) return say(0);
    const cutoff = new Date(Date.now() - olderThan.ms).toISOString();
    const old: JobSummary[] = [];
    for (let page: JobSummary[] = [], after: JobSummary | undefined; ; after = page.at(-1)) {
      page = await store.jobs.listJobs(user.id, PAGE, after);
      old.push(...page.filter((job) => job.createdAt < cutoff));
      if (page.length < PAGE) break;
    }
    // A forgotten list's later jobs (those that asked again) go with it: nothing would read them.
    const gone = await forgetRuns(dir, new Set(old.map((job) => job.id)));
    for (const jobId of gone) await store.jobs.deleteJob(user.id, jobId);
    say(gone.size);
  } finally {
    await store.close();
  }
}
