import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTextAtomic } from '../../../files/atomic-write.js';
import { withFileLock } from '../../../files/file-lock.js';

/** What this CLI remembers of local runs, in their data dir: the job of each list, by its content. */
const RUNS_FILE = 'local-runs.json';

export interface LocalRuns {
  /** By the list's path (or "stdin"): its last content's digest and the job made of it. */
  [list: string]: LocalRunRecord;
}

export interface LocalRunRecord {
  digest: string;
  /** The job of the whole list. */
  jobId: string;
  /** Jobs that asked again what an earlier one could not verify (this machine's own condition), oldest first: their results win. */
  retries?: string[];
  at: string;
}

export async function readRuns(dataDir: string): Promise<LocalRuns> {
  try {
    return JSON.parse(await readFile(join(dataDir, RUNS_FILE), 'utf8')) as LocalRuns;
  } catch {
    return {};
  }
}

/** Records the list's job, read-modify-write under a lock: of runs at once, each keeps the others' entries. */
export async function recordRun(dataDir: string, list: string, run: Omit<LocalRunRecord, 'at'>): Promise<void> {
  await withFileLock(join(dataDir, `${RUNS_FILE}.lock`), async () => {
    const runs = await readRuns(dataDir);
    runs[list] = { ...run, at: new Date().toISOString() };
    await writeTextAtomic(join(dataDir, RUNS_FILE), `${JSON.stringify(runs, null, 2)}\n`, { mode: 0o600 });
  });
}

/**
 * Forgets the lists whose job is one of `jobIds` (under the lock, as recordRun writes): answers those
 * jobs with the jobs that asked again for the lists forgotten.
 */
export async function forgetRuns(dataDir: string, jobIds: ReadonlySet<string>): Promise<Set<string>> {
  const gone = new Set(jobIds);
  await withFileLock(join(dataDir, `${RUNS_FILE}.lock`), async () => {
    const runs = await readRuns(dataDir);
    for (const [list, record] of Object.entries(runs)) {
      if (!jobIds.has(record.jobId)) continue;
      for (const retry of record.retries ?? []) gone.add(retry);
      delete runs[list];
    }
    await writeTextAtomic(join(dataDir, RUNS_FILE), `${JSON.stringify(runs, null, 2)}\n`, { mode: 0o600 });
  });
  return gone;
}
