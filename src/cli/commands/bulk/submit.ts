import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { ApiClient } from '../../../client/api-client.js';
import { InsufficientTokensError } from '../../../client/errors.js';
import type { BulkSubmission } from '../../../client/types.js';
import { readAddressList, type AddressList } from '../../../csv/address-list.js';
import { fingerprintOf, type FileFingerprint } from '../../../csv/fingerprint.js';
import { openListSource, rowPlace, type ListSource } from '../../../csv/source.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { refuseEngineFlagsWithoutLocal } from '../../engine-flags.js';
import { UsageError } from '../../errors.js';
import { parseSelectorList } from '../../format.js';
import { forEachConcurrently } from '../../concurrently.js';
import { announceStdinRead, type Io } from '../../io.js';
import { createSession, type Session } from '../../session.js';
import { privateTempDir, type TempDir } from '../../temp-dir.js';
import { Interruption, jobsNamed } from './jobs.js';
import { planOutput, type OutputFlags } from './output.js';
import { counted } from '../../format.js';
import { deliverResults } from './results.js';
import { MAX_BULK_EMAILS } from '../../../wire/contract.js';
import { BulkState, type ChunkRecord } from './state.js';

interface SubmitFlags extends OutputFlags {
  column?: string;
  precheck: boolean;
  wait?: boolean;
  json?: boolean;
  local?: boolean;
  failOn?: string;
  fresh?: boolean;
}


/**
 * stdin copied to a private temp file in `dir`: it is read twice (addresses now, rows at
 * merge-back). The copy goes when the command ends, unless a submission to a service recorded it:
 * a later `bulk results` merges into it.
 */
async function bufferStdin(io: Io, dir: TempDir): Promise<string> {
  announceStdinRead(io);
  const path = join(dir.path, 'stdin');
  await pipeline(io.stdin, createWriteStream(path, { mode: 0o600 }));
  return path;
}

function chunksOf<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

function describeList(list: AddressList, label: string): string[] {
  const lines = [
    `${label}: ${counted(list.rows, 'row')}, ${counted(list.addresses.length, 'address', 'addresses')} to verify, ` +
      `${counted(list.duplicates, 'duplicate')}, ${counted(list.invalid, 'invalid row')} not sent`,
  ];
  for (const rejected of list.rejected) lines.push(`  ${rowPlace(rejected)}: ${toSafeJson(rejected.address)}: ${rejected.reason}`);
  if (list.invalid > list.rejected.length) lines.push(`  … and ${list.invalid - list.rejected.length} more`);
  return lines;
}

/**
 * A list split over several jobs is charged job by job: the whole cost is checked first, so that
 * a short balance stops it before any job (exit 5, as the service's own 402 would).
 */
async function checkBalance(client: ApiClient, needed: number): Promise<void> {
  const { balance } = await client.account();
  if (balance < needed) {
    const problem = { code: 'insufficient_tokens', detail: 'the balance does not cover the whole list', balance, required: needed };
    throw new InsufficientTokensError({ status: 402, method: 'POST', url: `${client.baseUrl}/v1/bulk-verify`, problem });
  }
}

interface Submitted {
  source: ListSource;
  fingerprint: FileFingerprint | undefined;
  column: string | undefined;
  addresses: string[];
  /** Ask every address afresh (no reused verdicts). */
  fresh?: boolean;
}

/**
 * Requests in flight at once: while the service stores one job, the next request's body is built
 * and sent. The 20 requests of the 1M-row list took ~7% less time so than one after another
 * (bench/submit.js); the service stores one job at a time, so more would only queue there.
 */
const SUBMITS_IN_FLIGHT = 2;

/**
 * Sends the addresses in jobs of at most MAX_BULK_EMAILS, two requests at a time (the jobs are
 * answered in the list's order whichever the service stores first). Every request's
 * Idempotency-Key is recorded before anything is sent, so that neither the client's retries nor a
 * re-run after a crash can pay twice; each job id is recorded as soon as it is known.
 */
async function submitJobs(client: ApiClient, session: Session, { source, fingerprint, column, addresses, fresh }: Submitted): Promise<BulkSubmission[]> {
  const state = BulkState.open(session.env);
  const chunks = chunksOf(addresses, MAX_BULK_EMAILS);
  if (chunks.length > 1) await checkBalance(client, addresses.length);
  const digests = chunks.map((chunk) => createHash('sha256').update(chunk.join('\n')).digest('hex'));
  const earlierKeys = await state.unansweredKeys(source.path, digests);
  const records: ChunkRecord[] = chunks.map((chunk, index) => ({ idempotencyKey: earlierKeys[index] ?? randomUUID(), digest: digests[index]!, count: chunk.length }));
  const submission = { id: randomUUID(), createdAt: new Date().toISOString(), source: source.path, label: source.label, column, fingerprint, chunks: records };
  await state.addSubmission(submission);

  // Named after the list (its file name, never the local path), so that `bulk status` and the
  // dashboard say which list a job is.
  const list = basename(source.label);
  const jobs: BulkSubmission[] = [];
  // One state write at a time: each re-reads and rewrites the file, so two at once could lose one.
  let recording = Promise.resolve();
  const send = async (index: number) => {
    const { idempotencyKey } = records[index]!;
    const name = chunks.length === 1 ? list : `${list} (${index + 1}/${chunks.length})`;
    const job = await client.submitBulk(chunks[index]!, { idempotencyKey, name: name.slice(0, 200), fresh });
    jobs[index] = job;
    recording = recording.then(() => state.setJobId(submission.id, idempotencyKey, job.jobId));
    await recording;
  };
  try {
    await forEachConcurrently([...chunks.keys()], SUBMITS_IN_FLIGHT, send);
  } catch (error) {
    const submitted = jobs.filter((job) => job !== undefined);
    if (submitted.length > 0) session.warn(`submitted before the failure: ${jobsNamed(submitted.map((job) => job.jobId))}`);
    throw error;
  }
  return jobs;
}

export async function runBulkSubmit(file: string, command: Command): Promise<void> {
  const flags = command.optsWithGlobals<SubmitFlags>();
  const plan = await planOutput(flags);
  if (!flags.local) refuseEngineFlagsWithoutLocal(command);
  if (!flags.local && flags.failOn !== undefined) throw new UsageError('--fail-on needs --local', 'through a service, fetch the results with --only to see the matching rows');
  if (!flags.wait && !flags.local && (flags.output ?? flags.format ?? flags.only) !== undefined) {
    throw new UsageError('--output, --format and --only need --wait (or --local)', 'or fetch the results later with `mailverify bulk results <job>`');
  }
  const failOn = flags.failOn === undefined ? [] : parseSelectorList(flags.failOn, '--fail-on');
  const interruption = new Interruption();
  const session = createSession(command, { signal: interruption.signal });
  const { io } = session;
  let stdinCopy: TempDir | undefined;
  try {
    if (file === '-') stdinCopy = await privateTempDir('mailverify-stdin-');
    const path = stdinCopy ? await bufferStdin(io, stdinCopy) : resolve(file);
    const source = await openListSource(path, { label: file === '-' ? 'stdin' : file, column: flags.column });
    // Taken before the read, so that an edit while it runs counts as a change at merge-back; stdin's
    // private copy is edited by nobody, so it is not hashed (a second read of the whole list).
    const fingerprint = file === '-' ? undefined : await fingerprintOf(path);
    const list = await readAddressList(source, { precheck: flags.precheck });
    for (const line of describeList(list, source.label)) session.notice(line);
    if (flags.local) {
      const { runLocalSubmit } = await import('./local.js');
      return await runLocalSubmit({ session, command, plan, source, file, addresses: list.addresses, failOn, fresh: flags.fresh, argv: ['mailverify', ...process.argv.slice(2)] });
    }
    const client = session.authenticatedClient();

    if (list.addresses.length > 0) stdinCopy?.keep();
    const jobs = list.addresses.length === 0 ? [] : await submitJobs(client, session, { source, fingerprint, column: flags.column, addresses: list.addresses, fresh: flags.fresh });
    const jobIds = jobs.map((job) => job.jobId);
    const summary = { jobs: jobs.map(({ jobId, queued }) => ({ jobId, queued })), total: list.rows, duplicates: list.duplicates, invalid: list.invalid };
    // With --wait and no --output, stdout is for the results; the job ids then go to stderr.
    if (flags.wait && plan.path === undefined) session.notice(`submitted as ${jobsNamed(jobIds)}`);
    else io.stdout.write(io.json ? `${toSafeJson(summary)}\n` : jobIds.map((id) => `${terminalSafe(id)}\n`).join(''));

    if (flags.wait) await deliverResults({ session, client, interruption, jobIds, plan, source, wait: true });
  } finally {
    await stdinCopy?.remove();
    await session.close();
  }
}
