import { basename, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Chalk } from 'chalk';
import * as z from 'zod';
import { addressListOf, readAddressList, type AddressList } from '../../../csv/address-list.js';
import { openListSource } from '../../../csv/source.js';
import { VERDICTS, resultJson, type VerificationResult } from '../../../engine/core/types.js';
import { isSelected, isResultSelector, type ResultSelector } from '../../../engine/result-filter.js';
import { MAX_BULK_EMAILS } from '../../../wire/contract.js';
import { cliErrorFor } from '../../output/client-errors.js';
import { CliError, UsageError } from '../../output/errors.js';
import { explanationText } from '../../output/explain-format.js';
import type { JobStatus, McpBackend } from './backend.js';
import type { CallKeys } from './idempotency.js';

/** How long `submit_list` with `wait` waits at most unless told: under the 60 s an MCP client waits for an answer by default. */
const DEFAULT_WAIT_SECONDS = 50;
const POLL_MS = 500;
const PLAIN = new Chalk({ level: 0 });

/** A tool's answer: its data as JSON text (and a transcript beside it for explain_email). */
function answer(data: unknown, ...texts: string[]): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }, ...texts.map((text) => ({ type: 'text' as const, text }))] };
}

/** Any failure as a tool error (`isError`), worded as the CLI words it, never a crash of the server. */
function toolError(error: unknown, env: NodeJS.ProcessEnv): CallToolResult {
  const known = error instanceof CliError ? error : cliErrorFor(error, env);
  const text = known ? `${known.message}${known.hint ? ` (${known.hint})` : ''}` : error instanceof Error ? error.message : String(error);
  return { isError: true, content: [{ type: 'text', text }] };
}

function resultObject(result: VerificationResult): Record<string, unknown> {
  return JSON.parse(resultJson(result)) as Record<string, unknown>;
}

const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    'Optional. The same key (per tool) within 24 h answers the first response again without a new charge. Default: derived from the arguments, so a retried call is never charged twice; give a new key to ask again on purpose.',
  );
const fresh = z.boolean().optional().describe('Ask the mail server again rather than reuse a recent verdict of the service (default false).');
const jobId = z.string().min(1).describe('The job id submit_list answered (job_id).');

/** The selectors of `only`, as `bulk results --only` takes them; a wrong one is a tool error naming it. */
function selectors(only: string[] | undefined): ResultSelector[] | undefined {
  if (only === undefined || only.length === 0) return undefined;
  const lower = only.map((each) => each.trim().toLowerCase());
  const wrong = lower.find((each) => !isResultSelector(each));
  if (wrong !== undefined) throw new UsageError(`only: "${wrong}" is neither a verdict (${VERDICTS.join(', ')}) nor a reason code`);
  return lower as ResultSelector[];
}

/** The list of a submit_list call, read and pre-checked as `bulk submit` reads one. */
async function listOf(args: { emails?: string[]; file?: string; column?: string }): Promise<AddressList> {
  if ((args.emails === undefined) === (args.file === undefined)) throw new UsageError('give either emails or file, not both nor neither');
  if (args.emails !== undefined) return addressListOf(args.emails, { precheck: true });
  const source = await openListSource(resolve(args.file!), { label: args.file, column: args.column });
  return readAddressList(source, { precheck: true });
}

/** Polls until the job completes or `seconds` pass; answers its last status. */
async function waitFor(backend: McpBackend, id: string, seconds: number): Promise<JobStatus> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const status = await backend.status(id);
    if (status.status === 'completed' || Date.now() >= until) return status;
    await sleep(Math.min(POLL_MS, Math.max(0, until - Date.now())));
  }
}

/** How many results of each verdict. */
function verdictCounts(results: Iterable<VerificationResult>): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0]));
  for (const result of results) counts[result.result] = (counts[result.result] ?? 0) + 1;
  return counts;
}

/** What every tool's registration needs. */
interface Tools {
  server: McpServer;
  backend: McpBackend;
  keys: CallKeys;
  /** A tool's work, its failures answered as tool errors. */
  safely: <Args>(work: (args: Args) => Promise<CallToolResult>) => (args: Args) => Promise<CallToolResult>;
  /** The sentence of a description saying what a call costs through a service, or that it costs nothing here. */
  cost: (service: string) => string;
}

function addSingleTools({ server, backend, keys, safely, cost }: Tools): void {
  server.registerTool(
    'verify_email',
    {
      title: 'Verify one email address',
      description: `Verify whether one email address is deliverable: its verdict (valid, invalid, risky, catch_all, unknown), reason, reasonCode and checks. ${cost('Costs 1 token of the account; a retry of the same call is not charged again.')}`,
      inputSchema: { email: z.string().min(1).describe('The address to verify.'), fresh, idempotency_key: idempotencyKey },
    },
    safely(async ({ email, fresh = false, idempotency_key }) => {
      const key = keys('verify_email', { email: email.trim(), fresh }, idempotency_key);
      return answer(resultObject(await backend.verify(email.trim(), { fresh, explain: false, key })));
    }),
  );

  server.registerTool(
    'explain_email',
    {
      title: 'Verify one address and show how',
      description: `Verify one address as verify_email does and explain the verdict: the mail hosts asked, the egress used, every SMTP line with its time, what was reused (the transcript of \`mailverify verify --explain\`). ${cost('Costs what verify_email costs: 1 token; a retry of the same call is not charged again.')}`,
      inputSchema: { email: z.string().min(1).describe('The address to verify and explain.'), fresh, idempotency_key: idempotencyKey },
    },
    safely(async ({ email, fresh = false, idempotency_key }) => {
      const key = keys('explain_email', { email: email.trim(), fresh }, idempotency_key);
      const result = await backend.verify(email.trim(), { fresh, explain: true, key });
      const transcript = result.details ? explanationText(result.details, PLAIN) : 'no transcript: the verdict needed no mail host';
      return answer({ ...resultObject(result), details: result.details }, transcript);
    }),
  );
}

function addSubmitTool({ server, backend, keys, safely, cost }: Tools): void {
  server.registerTool(
    'submit_list',
    {
      title: 'Submit a list for bulk verification',
      description: `Verify a list as an asynchronous job: the addresses, or a CSV or text file on this machine (the email column found as \`mailverify bulk submit\` finds it). Duplicates are verified once; rows that fail the syntax check are reported and not sent. Answers job_id; follow it with job_status and job_results, or pass wait. ${cost('Costs 1 token per distinct address sent, charged at submission; a retry of the same call is not charged again.')}`,
      inputSchema: {
        emails: z.array(z.string()).min(1).max(MAX_BULK_EMAILS).optional().describe('The addresses (the contract\'s "emails"). Give this or file.'),
        file: z
          .string()
          .min(1)
          .optional()
          .describe('A CSV or plain-text list on this machine (a path, relative to where the server runs). Give this or emails.'),
        column: z.string().optional().describe('With file: the column holding the addresses, by header name or number (default: found by header or content).'),
        name: z.string().max(200).optional().describe("The job's name, shown by job_status and the dashboard (default: the file's name)."),
        fresh,
        wait: z.boolean().optional().describe('Wait for the job to complete (up to wait_seconds) before answering.'),
        wait_seconds: z.number().int().min(1).max(600).optional().describe(`With wait: how long at most (default ${DEFAULT_WAIT_SECONDS}).`),
        idempotency_key: idempotencyKey,
      },
    },
    safely(async (args) => {
      const list = await listOf(args);
      if (list.addresses.length === 0)
        throw new UsageError(`no address to verify: ${list.rows} rows, ${list.invalid} failing the syntax check, ${list.duplicates} duplicates`);
      if (list.addresses.length > MAX_BULK_EMAILS) {
        throw new UsageError(
          `${list.addresses.length} distinct addresses: a job takes at most ${MAX_BULK_EMAILS}`,
          'split the list, or run `mailverify bulk submit`, which splits it',
        );
      }
      const name = args.name ?? (args.file === undefined ? undefined : basename(args.file));
      const fresh = args.fresh ?? false;
      const key = keys('submit_list', { addresses: list.addresses, name, fresh }, args.idempotency_key);
      const submitted = await backend.submit(list.addresses, { name, fresh, key });
      const read = { rows: list.rows, duplicates: list.duplicates, not_sent: list.invalid, rejected: list.rejected };
      if (!args.wait) return answer({ ...submitted, ...read });
      const status = await waitFor(backend, submitted.job_id, args.wait_seconds ?? DEFAULT_WAIT_SECONDS);
      const counts = status.status === 'completed' ? { counts: verdictCounts((await backend.results(submitted.job_id)).values()) } : {};
      return answer({ ...submitted, ...read, ...status, ...counts });
    }),
  );
}

function addJobTools({ server, backend, safely }: Tools): void {
  server.registerTool(
    'job_status',
    {
      title: 'Progress of a bulk job',
      description:
        'The progress of a job submit_list made: status (processing, completed), total, processed, progress_percent, and the addresses waiting for a retry (greylisting). Costs nothing.',
      inputSchema: { job_id: jobId },
    },
    safely(async ({ job_id }) => answer(await backend.status(job_id))),
  );

  server.registerTool(
    'job_results',
    {
      title: 'Results of a bulk job',
      description:
        'The results of a job so far (all of them once job_status says completed), a page at a time, with the counts of each verdict. only keeps the results with these verdicts or reason codes, as `mailverify bulk results --only`. Costs nothing.',
      inputSchema: {
        job_id: jobId,
        only: z.array(z.string()).optional().describe('Verdicts (valid, invalid, risky, catch_all, unknown) or reason codes (mailbox_not_found, …) to keep.'),
        offset: z.number().int().min(0).optional().describe('Results to skip, of those kept (default 0).'),
        limit: z.number().int().min(1).max(1000).optional().describe('Results to answer at most (default 100).'),
      },
    },
    safely(async ({ job_id, only, offset = 0, limit = 100 }) => {
      const chosen = selectors(only);
      const status = await backend.status(job_id);
      const all = [...(await backend.results(job_id)).values()];
      const kept = chosen === undefined ? all : all.filter((result) => isSelected(chosen, result));
      const page = kept.slice(offset, offset + limit);
      const next = offset + limit < kept.length ? offset + limit : null;
      return answer({ ...status, counts: verdictCounts(all), matching: kept.length, offset, next_offset: next, results: page.map(resultObject) });
    }),
  );
}

/** The five tools of docs/cli.md "For agents", each answering through `backend`. */
export function registerTools(server: McpServer, backend: McpBackend, keys: CallKeys, env: NodeJS.ProcessEnv, local: boolean): void {
  const tools: Tools = {
    server,
    backend,
    keys,
    safely: (work) => async (args) => {
      try {
        return await work(args);
      } catch (error) {
        return toolError(error, env);
      }
    },
    cost: (service) => (local ? 'Costs nothing here (--local: the engine of this machine).' : service),
  };
  addSingleTools(tools);
  addSubmitTool(tools);
  addJobTools(tools);
}
