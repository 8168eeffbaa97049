import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_FILE_MODE, ensureConfigDir } from '../../../../config/state.js';
import type { FileFingerprint } from '../../../../csv/fingerprint.js';
import { writeTextAtomic } from '../../../files/atomic-write.js';
import { CliError, ExitCode } from '../../../output/errors.js';

/** One request of a submission: its key is recorded before the request is sent, its job id after. */
export interface ChunkRecord {
  idempotencyKey: string;
  /** SHA-256 of the chunk's addresses: a re-run of the same list may reuse an unanswered key. */
  digest: string;
  count: number;
  jobId?: string;
}

/** One `bulk submit`: the list it read and the jobs it made, so results can be merged back into it. */
export interface SubmissionRecord {
  id: string;
  createdAt: string;
  /** Absolute path of the list (for stdin: the copy kept of it). */
  source: string;
  label: string;
  column?: string;
  /** The list as it was read (absent in records of older versions): merge-back warns when it changed. */
  fingerprint?: FileFingerprint;
  chunks: ChunkRecord[];
}

interface StateFile {
  version: 1;
  submissions: SubmissionRecord[];
}

const STATE_FILE = 'bulk-jobs.json';
/** Older submissions are forgotten: their jobs can still be fetched, just not merged automatically. */
const KEPT_SUBMISSIONS = 500;
/** The service remembers an Idempotency-Key for 24 hours; after that a reused key is a new request. */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * The CLI's record of its bulk submissions, a JSON file in the config directory. Every change
 * re-reads the file and rewrites it atomically, so a crash never leaves half a file and two CLI
 * runs one after the other both keep their records.
 */
export class BulkState {
  private constructor(readonly path: string) {}

  static open(env: NodeJS.ProcessEnv = process.env): BulkState {
    return new BulkState(join(ensureConfigDir(env), STATE_FILE));
  }

  private async read(): Promise<StateFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, submissions: [] };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as StateFile;
      if (!Array.isArray(parsed.submissions)) throw new Error('no "submissions" list');
      return parsed;
    } catch (error) {
      throw new CliError(`${this.path} is damaged: ${(error as Error).message}`, ExitCode.failure, `delete it to start afresh (the jobs stay on the service)`);
    }
  }

  private async update(change: (state: StateFile) => void): Promise<void> {
    const state = await this.read();
    change(state);
    state.submissions = state.submissions.slice(-KEPT_SUBMISSIONS);
    await writeTextAtomic(this.path, `${JSON.stringify(state, null, 2)}\n`, { mode: CONFIG_FILE_MODE });
  }

  /**
   * Records a submission and the keys of all its requests, before any is sent. A key taken over
   * from an unanswered earlier request now belongs to this submission alone.
   */
  async addSubmission(submission: SubmissionRecord): Promise<void> {
    const keys = new Set(submission.chunks.map((chunk) => chunk.idempotencyKey));
    await this.update((state) => {
      for (const earlier of state.submissions) {
        earlier.chunks = earlier.chunks.filter((chunk) => chunk.jobId !== undefined || !keys.has(chunk.idempotencyKey));
      }
      state.submissions = state.submissions.filter((earlier) => earlier.chunks.length > 0);
      state.submissions.push(submission);
    });
  }

  async setJobId(submissionId: string, idempotencyKey: string, jobId: string): Promise<void> {
    await this.update((state) => {
      const chunk = state.submissions.find((each) => each.id === submissionId)?.chunks.find((each) => each.idempotencyKey === idempotencyKey);
      if (chunk) chunk.jobId = jobId;
    });
  }

  /** The submission a job belongs to, if this CLI made it. */
  async findByJob(jobId: string): Promise<SubmissionRecord | undefined> {
    const { submissions } = await this.read();
    return submissions.findLast((submission) => submission.chunks.some((chunk) => chunk.jobId === jobId));
  }

  /**
   * For each digest, the key of an earlier request for the same addresses from the same list whose
   * answer never got recorded (the CLI died or the connection broke): sending it again returns that
   * job instead of paying twice. One read of the file for all the chunks of a list.
   */
  async unansweredKeys(source: string, digests: string[], now = Date.now()): Promise<(string | undefined)[]> {
    const { submissions } = await this.read();
    const recent = submissions.filter((submission) => submission.source === source && now - Date.parse(submission.createdAt) <= KEY_LIFETIME_MS).toReversed();
    return digests.map((digest) => {
      for (const submission of recent) {
        const chunk = submission.chunks.find((each) => each.digest === digest && each.jobId === undefined);
        if (chunk) return chunk.idempotencyKey;
      }
      return undefined;
    });
  }
}
