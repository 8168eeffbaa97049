import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ApiClient } from '../../../client/api-client.js';
import { InsufficientTokensError } from '../../../client/errors.js';
import type { BulkSubmission } from '../../../client/types.js';
import { readAddressList, type AddressList } from '../../../csv/address-list.js';
import { fingerprintOf, type FileFingerprint } from '../../../csv/fingerprint.js';
import { openListSource, rowPlace, type ListSource } from '../../../csv/source.js';
import { terminalSafe, toSafeJson } from '../../../text/sanitize.js';
import { parseEvidenceWindow } from '../../local-service/service-policy.js';
import { durationMs, engineFlags, refuseEngineFlagsWithoutLocal, type EngineFlags } from '../../options/engine-flags.js';
import { sandboxNeedsLocal, UsageError } from '../../output/errors.js';
import { NO_FAIL_ON, parseFailOn, type FailOn } from '../../output/fail-on.js';
import { forEachConcurrently } from '../../session/concurrently.js';
import { announceStdinRead, type Io } from '../../output/io.js';
import { outputFlags } from '../../options/output-flags.js';
import { listFlag, switchFlag, textArg, textFlag, unlessNegated, type ParsedCommand } from '../../options/parsed-command.js';
import { programOptions, type ProgramOptions } from '../../options/program-options.js';
import { createSession, type Session } from '../../session/session.js';
import { privateTempDir, type TempDir } from '../../files/temp-dir.js';
import { Interruption, jobsNamed } from './support/jobs.js';
import { planOutput, type OutputPlan } from './support/output.js';
import { counted } from '../../output/format.js';
import { deliverResults } from './support/delivery.js';
import { progressEvents, writeSummaryEvent } from './support/events.js';
import { MAX_BULK_EMAILS } from '../../../wire/contract.js';
import { BulkState, type ChunkRecord } from './support/state.js';
import { DEFAULT_MAX_AGE } from '../../local-service/local-reuse.js';

/** `bulk submit`'s options, checked: what the command line asked for. */
export interface SubmitOptions {
  program: ProgramOptions;
  /** The list as given: a path, or - for stdin. */
  file: string;
  column?: string;
  /** Leave out the addresses that fail the syntax check (--no-precheck sends them). */
  precheck: boolean;
  wait: boolean;
  local: boolean;
  /** `--sandbox` (with --local): a sandbox job, answered by local part, no server asked. */
  sandbox: boolean;
  fresh: boolean;
  /** --settle-within, in seconds: the job's `settleWithin`. */
  settleWithinSeconds?: number;
  /** --fail-on: checked once every output is written. */
  failOn: FailOn;
  plan: OutputPlan;
  engine: EngineFlags;
  /** --data-dir, with --local. */
  dataDir?: string;
  /** --evidence-window as given, with --local (read with the environment when it runs). */
  evidenceWindow?: string;
  /** --max-age, with --local: how old a reused result of an earlier run may be, as given and in ms. */
  maxAge: { raw: string; ms: number };
}

/** `bulk submit`'s command line as options, or a UsageError: nothing is read or sent before it is all checked. */
export async function parse(parsed: ParsedCommand): Promise<SubmitOptions> {
  const { flags } = parsed;
  const local = switchFlag(flags, 'local');
  const wait = switchFlag(flags, 'wait');
  const output = outputFlags(flags);
  const failOn = listFlag(flags, 'failOn');
  const plan = await planOutput(output);
  const engine = engineFlags(parsed);
  const settleWithin = textFlag(flags, 'settleWithin');
  if (!local) refuseEngineFlagsWithoutLocal(engine);
  const maxAge = textFlag(flags, 'maxAge');
  if (!local && maxAge !== undefined)
    throw new UsageError('--max-age needs --local', 'a service decides itself how long it reuses a verdict; --fresh asks it not to');
  const sandbox = switchFlag(flags, 'sandbox');
  if (sandbox && !local) throw sandboxNeedsLocal();
  if (!local && !wait && failOn !== undefined)
    throw new UsageError('--fail-on needs --wait (or --local)', 'or gate the results later with `mailverify bulk results <job> --fail-on …`');
  if (!wait && !local && (output.output ?? output.format ?? output.only) !== undefined) {
    throw new UsageError('--output, --format and --only need --wait (or --local)', 'or fetch the results later with `mailverify bulk results <job>`');
  }
  return {
    program: programOptions(parsed.program),
    file: textArg(parsed, 0),
    column: textFlag(flags, 'column'),
    precheck: unlessNegated(flags, 'precheck'),
    wait,
    local,
    sandbox,
    fresh: switchFlag(flags, 'fresh'),
    settleWithinSeconds: settleWithin === undefined ? undefined : Math.ceil(durationMs(settleWithin, '--settle-within') / 1_000),
    failOn: failOn === undefined ? NO_FAIL_ON : parseFailOn(failOn),
    plan,
    engine,
    dataDir: textFlag(flags, 'dataDir'),
    evidenceWindow: textFlag(flags, 'evidenceWindow'),
    maxAge: { raw: maxAge ?? DEFAULT_MAX_AGE, ms: durationMs(maxAge ?? DEFAULT_MAX_AGE, '--max-age') },
  };
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
  /** The jobs' `settleWithin`, in seconds. */
  settleWithin?: number;
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
async function submitJobs(
  client: ApiClient,
  session: Session,
  { source, fingerprint, column, addresses, fresh, settleWithin }: Submitted,
): Promise<BulkSubmission[]> {
  const state = BulkState.open(session.env);
  const chunks = chunksOf(addresses, MAX_BULK_EMAILS);
  if (chunks.length > 1) await checkBalance(client, addresses.length);
  const digests = chunks.map((chunk) => createHash('sha256').update(chunk.join('\n')).digest('hex'));
  const earlierKeys = await state.unansweredKeys(source.path, digests);
  const records: ChunkRecord[] = chunks.map((chunk, index) => ({
    idempotencyKey: earlierKeys[index] ?? randomUUID(),
    digest: digests[index]!,
    count: chunk.length,
  }));
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
    const job = await client.submitBulk(chunks[index]!, { idempotencyKey, name: name.slice(0, 200), fresh, settleWithin });
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

/** Sends the list as jobs and prints their ids; with --wait, writes their results; with --local, verifies it here. */
export async function run(options: SubmitOptions, io: Io): Promise<void> {
  const { file, plan } = options;
  const interruption = new Interruption();
  const session = createSession(options.program, io, { signal: interruption.signal });
  let stdinCopy: TempDir | undefined;
  try {
    if (file === '-') stdinCopy = await privateTempDir('mailverify-stdin-');
    const path = stdinCopy ? await bufferStdin(io, stdinCopy) : resolve(file);
    const source = await openListSource(path, { label: file === '-' ? 'stdin' : file, column: options.column });
    // Taken before the read, so that an edit while it runs counts as a change at merge-back; stdin's
    // private copy is edited by nobody, so it is not hashed (a second read of the whole list).
    const fingerprint = file === '-' ? undefined : await fingerprintOf(path);
    const list = await readAddressList(source, { precheck: options.precheck });
    for (const line of describeList(list, source.label)) session.notice(line);
    if (options.local) {
      const { runLocalSubmit } = await import('./support/local.js');
      const { engine, dataDir, failOn, fresh, settleWithinSeconds, maxAge, sandbox } = options;
      return await runLocalSubmit({
        session,
        engine,
        dataDir,
        plan,
        source,
        file,
        addresses: list.addresses,
        failOn,
        fresh,
        settleWithinSeconds,
        maxAge,
        sandbox,
        argv: ['mailverify', ...process.argv.slice(2)],
        evidenceWindowMs: parseEvidenceWindow(options.evidenceWindow, session.env),
      });
    }
    const client = session.authenticatedClient();

    if (list.addresses.length > 0) stdinCopy?.keep();
    const jobs =
      list.addresses.length === 0
        ? []
        : await submitJobs(client, session, {
            source,
            fingerprint,
            column: options.column,
            addresses: list.addresses,
            fresh: options.fresh,
            settleWithin: options.settleWithinSeconds,
          });
    const jobIds = jobs.map((job) => job.jobId);
    const summary = { jobs: jobs.map(({ jobId, queued }) => ({ jobId, queued })), total: list.rows, duplicates: list.duplicates, invalid: list.invalid };
    // --wait --json: NDJSON events on stdout, the summary last (docs/cli.md "Progress in logs").
    const events = options.wait && io.json;
    // With --wait and no --output, stdout is for the results; the job ids then go to stderr.
    if (options.wait && (events || plan.path === undefined)) session.notice(`submitted as ${jobsNamed(jobIds)}`);
    else if (io.json) io.stdout.write(`${toSafeJson(summary)}\n`);
    // --quiet is for cron: its mail should hold errors only, so not even the job ids.
    else if (!io.quiet) io.stdout.write(jobIds.map((id) => `${terminalSafe(id)}\n`).join(''));

    if (options.wait) {
      await deliverResults({
        session,
        client,
        interruption,
        jobIds,
        plan,
        source,
        wait: true,
        failOn: options.failOn,
        onPoll: events ? progressEvents(io) : undefined,
        onWritten: events ? () => writeSummaryEvent(io, summary) : undefined,
      });
    }
  } finally {
    await stdinCopy?.remove();
    await session.close();
  }
}
