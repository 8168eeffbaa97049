import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { expect } from 'vitest';
import type { EngineOptions, Verifier } from '../../src/engine/core/types.js';
import { createVerifier } from '../../src/engine/index.js';
import { buildApp } from '../../src/server/app.js';
import { generateApiToken, hashApiToken } from '../../src/server/auth/api-tokens.js';
import { createJwtIssuer, type JwtIssuer } from '../../src/server/auth/jwt.js';
import { startJobRunner } from '../../src/server/jobs/runner.js';
import type { HttpTimeouts } from '../../src/server/http/server.js';
import type { SnsFetcher } from '../../src/server/receivers/sns-fetcher.js';
import type { LogSettings } from '../../src/server/logging/logger.js';
import { hashPassword } from '../../src/server/auth/passwords.js';
import { openStore } from '../../src/server/store/open/open-store.js';
import type { Store, User } from '../../src/server/store/store.js';
import { startDnsServer, type DnsFixture } from './dns-server.js';
import { startSmtpServer, type SmtpFixture, type SmtpFixtureOptions } from './smtp-server.js';

/**
 * The service's app for integration tests: the real fastify app, store, JWT issuer and job runner
 * on a temp data dir, listening on an ephemeral loopback port, requests over real HTTP. The engine
 * is the real one pointed at loopback DNS and SMTP fixtures (a `MailWorld`), unless a test hands
 * in its own verifier (the real engine wrapped to fail on one address).
 */

export const MAIL_DOMAIN = 'service.test';
/** A domain that does not exist (NXDOMAIN): its addresses are `invalid` without any SMTP. */
export const MISSING_DOMAIN = 'nowhere.test';

export interface MailWorld {
  dns: DnsFixture;
  smtp: SmtpFixture;
  engine: Partial<EngineOptions>;
  /** The same engine settings as `serve` flags, for a spawned service. */
  engineArgs: string[];
  close(): Promise<void>;
}

/** DNS with `service.test` → MX on 127.0.0.1, an SMTP server there knowing `mailboxes` (and greylisting as told). */
export async function startMailWorld(
  options: Pick<SmtpFixtureOptions, 'replyDelayMs' | 'greylist' | 'unknownUserText' | 'caseSensitive'> & { mailboxes: string[] },
): Promise<MailWorld> {
  const smtp = await startSmtpServer({ host: '127.0.0.1', replyDelayMs: 0, ...options });
  const dns = await startDnsServer({
    [MAIL_DOMAIN]: { records: [{ type: 'MX', exchange: `mx.${MAIL_DOMAIN}`, priority: 10 }] },
    [`mx.${MAIL_DOMAIN}`]: { records: [{ type: 'A', address: '127.0.0.1' }] },
  });
  const engine: Partial<EngineOptions> = {
    dnsServers: [dns.server],
    smtpPort: smtp.port,
    heloName: 'probe.test',
    mailFrom: 'probe@probe.test',
    dnsblZones: [],
    webCheck: false,
    allowPrivateNetworks: true,
    retryScheduleMs: [],
    connectTimeoutMs: 3_000,
    commandTimeoutMs: 3_000,
  };
  const engineArgs = [
    '--dns-server',
    dns.server,
    '--smtp-port',
    String(smtp.port),
    '--helo',
    'probe.test',
    '--mail-from',
    'probe@probe.test',
    '--retry-schedule',
    'none',
    '--connect-timeout',
    '3000',
    '--command-timeout',
    '3000',
  ];
  return {
    dns,
    smtp,
    engine,
    engineArgs,
    async close() {
      await Promise.all([dns.close(), smtp.close()]);
    },
  };
}

export interface TestUserOptions {
  credits: number;
  /** Requests per window; high by default so that only rate-limit tests meet the limit. */
  rateLimit?: number;
  windowSeconds?: number;
  password?: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined for an empty body). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- each test checks the shape itself
  contentType: string;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is (with whatever content type `headers` gives). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** An undici dispatcher of the test's own (e.g. one connecting from another loopback address). */
  dispatcher?: Dispatcher;
}

export interface TestApp {
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  store: Store;
  jwt: JwtIssuer;
  jwtSecret: Uint8Array;
  /** A user with a fresh `mv_` token (in the store all instances on this data dir share). */
  createUser(email: string, options: TestUserOptions): Promise<{ user: User; token: string }>;
  call(method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'OPTIONS', path: string, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

const silentLog = { info: () => undefined, error: () => undefined };

/** One HTTP request to the app; every test's requests go through this. */
export async function call(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body = options.rawBody;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await request(new URL(path, baseUrl), { method: method as 'GET', headers, body, dispatcher: options.dispatcher });
  const text = await response.body.text();
  const contentType = String(response.headers['content-type'] ?? '');
  return { status: response.statusCode, headers: response.headers, body: text === '' ? undefined : JSON.parse(text), contentType };
}

/** The problem+json body of docs/api.md with this status and `code`. */
export function expectProblem(reply: Reply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.contentType).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof reply.body.title).toBe('string');
  expect(typeof reply.body.detail).toBe('string');
}

export interface TestAppOptions {
  world?: MailWorld;
  /** The engine to use instead of one on `world` (a fault-injecting wrapper). */
  verifier?: Verifier;
  /** Where the app logs; silent otherwise. */
  log?: LogSettings;
  /** Another app's data dir, for a second service instance on the same store; a fresh temp dir otherwise. */
  dataDir?: string;
  /** Short HTTP timeouts for the slow-client tests; the service's defaults otherwise. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** A PostgreSQL database to keep everything in instead of SQLite in the data dir. */
  databaseUrl?: string;
  /** What SNS evidence receivers fetch certificates and confirmations through (a loopback SNS); the production fetcher otherwise. */
  sns?: SnsFetcher;
}

export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mailverify-app-')));
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
  const jwtSecret = await store.install.signingSecret();
  const jwt = await createJwtIssuer(jwtSecret);
  const verifier = options.verifier ?? createVerifier(options.world!.engine);
  const runner = startJobRunner({ queue: store.work, verifier, retryScheduleMs: [], log: silentLog, idlePollMs: 200 });
  const app = buildApp({
    store,
    verifier,
    jwt,
    onJobCreated: () => runner.wake(),
    log: options.log,
    httpTimeouts: options.httpTimeouts,
    sns: options.sns,
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    dataDir,
    databaseUrl: options.databaseUrl,
    store,
    jwt,
    jwtSecret,
    async createUser(email, { credits, rateLimit = 10_000, windowSeconds = 1, password }) {
      const passwordHash = password === undefined ? null : await hashPassword(password);
      const user = await store.accounts.createUser({ email, passwordHash, balance: credits, rateLimit, rateWindowSeconds: windowSeconds });
      const token = generateApiToken();
      await store.tokens.createApiToken(user.id, 'test', hashApiToken(token));
      return { user, token };
    },
    call: (method, path, callOptions) => call(baseUrl, method, path, callOptions),
    async close() {
      await app.close();
      await runner.stop();
      await store.close();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The contract's progress object (docs/api.md "Routes"). */
export interface JobProgress {
  job_id: string;
  status: string;
  total: number;
  processed: number;
  progress_percent: number;
  /** Only while addresses wait for their next try. */
  waiting?: number;
  nextAttemptAt?: string;
}

export async function jobProgress(baseUrl: string, jobId: string, token: string): Promise<JobProgress> {
  const reply = await call(baseUrl, 'GET', `/v1/bulk-verify/${jobId}/progress`, { token });
  if (reply.status !== 200) throw new Error(`progress of ${jobId}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as JobProgress;
}

/**
 * Polls a job's progress until `done` holds (at most a minute), recording every answer in `seen`
 * so that a test can check the sequence (monotonic, 100 only when completed).
 */
export async function pollProgress(
  baseUrl: string,
  jobId: string,
  token: string,
  done: (progress: JobProgress) => boolean,
  seen: JobProgress[] = [],
): Promise<JobProgress> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const progress = await jobProgress(baseUrl, jobId, token);
    seen.push(progress);
    if (done(progress)) return progress;
    if (Date.now() > deadline) throw new Error(`job stuck at ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A result as a job's page gives it (docs/api.md "Routes"), the fields tests compare. */
export interface JobResult {
  email: string;
  result: string;
  reasonCode: string;
}

/** Submits `emails` afresh (no cached verdict), waits for the job to complete, and gives its results. */
export async function verifyFresh(baseUrl: string, token: string, emails: string[]): Promise<JobResult[]> {
  const submitted = await call(baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails, fresh: true } });
  if (submitted.status !== 200) throw new Error(`bulk-verify: HTTP ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const jobId = submitted.body.jobId as string;
  await pollProgress(baseUrl, jobId, token, (progress) => progress.status === 'completed');
  return (await call(baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).body.results as JobResult[];
}
