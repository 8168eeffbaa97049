import type { EvidenceEvent } from '../engine/evidence/event.js';
import type { AddressEvidence, EvidenceImport, EvidencePageInfo } from '../wire/evidence.js';
import type { CreatedReceiver, CreateReceiverRequest, ReceiverInfo } from '../wire/evidence-receivers.js';
import { DEVICE_CODE_GRANT_TYPE } from '../wire/contract.js';
import { BadRequestError, DeviceLoginError } from './errors.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { createTransport } from './transport.js';
import type {
  Account,
  BulkSubmission,
  CreatedToken,
  CreateTokenRequest,
  DeviceAuthorization,
  DeviceToken,
  Health,
  JobList,
  JobPage,
  JobProgress,
  LoginResponse,
  TokenInfo,
  VerificationResult,
  CreatedWebhook,
  WebhookInfo,
  WebhookTest,
} from './types.js';

export interface ApiClientOptions {
  baseUrl: string;
  /** An `mv_` token or a JWT; routes other than login and health need one. */
  token?: string;
  /** Budget of one attempt of one request. */
  timeoutMs?: number;
  /** Receives `--debug` traces (method, URL, status, timing; Authorization redacted). */
  debug?: NodeJS.WritableStream;
  retry?: Partial<RetryPolicy>;
  /** Aborts requests in flight and retry waits. */
  signal?: AbortSignal;
  /** Told before every wait between attempts (a 429's Retry-After, backoff after a 5xx or a cut connection). */
  onRetryWait?: (error: unknown, delayMs: number) => void;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** `fresh`: the service asks the mail host again rather than reuse a recent verdict. */
  /** `explain`: the result carries `details`, how its verdict was reached. */
  verify(email: string, options?: { idempotencyKey?: string; fresh?: boolean; explain?: boolean }): Promise<VerificationResult>;
  /** The key is required: a bulk submission is charged, so it must be safe to retry. */
  submitBulk(emails: string[], options: { idempotencyKey: string; name?: string; fresh?: boolean; settleWithin?: number }): Promise<BulkSubmission>;
  progress(jobId: string): Promise<JobProgress>;
  /** A page of this account's jobs, newest first, after `cursor` (the previous page's `next_cursor`). */
  listJobs(page: { limit: number; cursor?: string }): Promise<JobList>;
  /** A page of at most `limit` results, after `cursor` (the previous page's `next_cursor`). */
  jobPage(jobId: string, page: { limit: number; cursor?: string }): Promise<JobPage>;
  /** Deletes the job: its addresses and results leave the service (a job still processing stops). */
  deleteJob(jobId: string): Promise<void>;
  account(): Promise<Account>;
  /** Exchanges credentials for a short-lived JWT; needs no token. */
  login(email: string, password: string): Promise<LoginResponse>;
  /** Starts a device login (RFC 8628): the codes to show and to poll with; needs no token. */
  startDeviceLogin(clientName: string): Promise<DeviceAuthorization>;
  /**
   * One poll of a device login: the token once approved, else whether to wait (`authorization_pending`)
   * or to wait longer (`slow_down`); a login that cannot succeed any more is a DeviceLoginError.
   */
  pollDeviceLogin(deviceCode: string): Promise<DevicePoll>;
  /** Creates an `mv_` token (every scope, never expiring, unless `grant` says); the secret is in this answer only. */
  createToken(name: string, grant?: Omit<CreateTokenRequest, 'name'>): Promise<CreatedToken>;
  listTokens(): Promise<TokenInfo[]>;
  deleteToken(id: string): Promise<void>;
  /** Creates an evidence receiver; its URL (whose end is its secret) is in this answer only. */
  createEvidenceReceiver(request: CreateReceiverRequest): Promise<CreatedReceiver>;
  listEvidenceReceivers(): Promise<ReceiverInfo[]>;
  deleteEvidenceReceiver(id: string): Promise<void>;
  /** Registers a webhook endpoint; its signing secret is in this answer only. */
  createWebhook(url: string, description?: string): Promise<CreatedWebhook>;
  listWebhooks(): Promise<WebhookInfo[]>;
  deleteWebhook(id: string): Promise<void>;
  /** Sends a `webhook.test` event to the endpoint; answers the event's id. */
  testWebhook(id: string): Promise<WebhookTest>;
  /**
   * Adds events to the account's evidence (at most MAX_EVIDENCE_EVENTS a call). Sent again safely
   * after a lost answer: an identical event is kept once, so the retry key only lets the transport retry.
   */
  importEvidence(events: readonly EvidenceEvent[], retryKey: string): Promise<EvidenceImport>;
  /** A page of the account's events, newest imports first. */
  evidencePage(page: { limit: number; cursor?: string }): Promise<EvidencePageInfo>;
  /** One address's events and what they decide. */
  evidenceOf(email: string): Promise<AddressEvidence>;
  /** Deletes the account's events: all, or one address's or one source's. */
  deleteEvidence(selection: { email?: string; source?: string }): Promise<{ deleted: number }>;
  health(): Promise<Health>;
  /**
   * How far the service's clock is ahead of ours (behind when negative), in ms, from the Date header
   * of /healthz against the middle of the request; good to about a second. Null without a Date header.
   */
  clockOffset(): Promise<number | null>;
  /** Closes kept-alive connections. */
  close(): Promise<void>;
}

export type DevicePoll = { kind: 'token'; token: DeviceToken } | { kind: 'authorization_pending' } | { kind: 'slow_down'; interval?: number };

const DEFAULT_TIMEOUT_MS = 30_000;

/** The poll's answers that end a device login (RFC 8628 §3.5, RFC 6749 §5.2). */
const DEVICE_LOGIN_ENDS = new Set(['access_denied', 'expired_token', 'invalid_grant']);

const segment = (id: string) => encodeURIComponent(id);

/** A typed client for every route of the service (docs/api.md "Routes"). */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const transport = createTransport({
    baseUrl: options.baseUrl,
    token: options.token,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    debug: options.debug,
    signal: options.signal,
    onRetryWait: options.onRetryWait,
  });
  const send = transport.send;

  return {
    baseUrl: options.baseUrl,
    // Only the fields given: a service that knows no `fresh` is not sent one it would refuse.
    verify: (email, { idempotencyKey, fresh, explain } = {}) =>
      send({ method: 'POST', path: '/v1/verify', body: { email, ...(fresh ? { fresh } : {}), ...(explain ? { explain } : {}) }, idempotencyKey }),
    submitBulk: (emails, { idempotencyKey, name, fresh, settleWithin }) =>
      send({
        method: 'POST',
        path: '/v1/bulk-verify',
        body: { emails, ...(name === undefined ? {} : { name }), ...(fresh ? { fresh } : {}), ...(settleWithin === undefined ? {} : { settleWithin }) },
        idempotencyKey,
      }),
    progress: (jobId) => send({ method: 'GET', path: `/v1/bulk-verify/${segment(jobId)}/progress` }),
    listJobs: ({ limit, cursor }) => {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor === undefined ? {} : { cursor }) });
      return send({ method: 'GET', path: `/v1/bulk-verify?${query}` });
    },
    jobPage: (jobId, { limit, cursor }) => {
      const query = new URLSearchParams({ limit: String(limit), ...(cursor === undefined ? {} : { cursor }) });
      return send({ method: 'GET', path: `/v1/bulk-verify/${segment(jobId)}?${query}` });
    },
    deleteJob: (jobId) => send({ method: 'DELETE', path: `/v1/bulk-verify/${segment(jobId)}` }),
    account: () => send({ method: 'GET', path: '/v1/account' }),
    login: (email, password) => send({ method: 'POST', path: '/v1/auth/login', body: { email, password }, anonymous: true }),
    startDeviceLogin: (clientName) => send({ method: 'POST', path: '/v1/auth/device', body: { client_name: clientName }, anonymous: true }),
    async pollDeviceLogin(deviceCode) {
      const body = { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: deviceCode };
      try {
        return { kind: 'token', token: await send<DeviceToken>({ method: 'POST', path: '/v1/auth/device/token', body, anonymous: true }) };
      } catch (error) {
        if (!(error instanceof BadRequestError)) throw error;
        if (error.code === 'authorization_pending') return { kind: error.code };
        if (error.code === 'slow_down') return { kind: error.code, interval: error.problem.interval };
        if (DEVICE_LOGIN_ENDS.has(error.code)) throw new DeviceLoginError(error);
        throw error;
      }
    },
    createToken: (name, grant = {}) => send({ method: 'POST', path: '/v1/tokens', body: { name, ...grant } }),
    listTokens: async () => (await send<{ tokens: TokenInfo[] }>({ method: 'GET', path: '/v1/tokens' })).tokens,
    deleteToken: (id) => send({ method: 'DELETE', path: `/v1/tokens/${segment(id)}` }),
    createEvidenceReceiver: (request) => send({ method: 'POST', path: '/v1/evidence/receivers', body: request }),
    listEvidenceReceivers: async () => (await send<{ receivers: ReceiverInfo[] }>({ method: 'GET', path: '/v1/evidence/receivers' })).receivers,
    deleteEvidenceReceiver: (id) => send({ method: 'DELETE', path: `/v1/evidence/receivers/${segment(id)}` }),
    createWebhook: (url, description) => send({ method: 'POST', path: '/v1/webhooks', body: description === undefined ? { url } : { url, description } }),
    listWebhooks: async () => (await send<{ webhooks: WebhookInfo[] }>({ method: 'GET', path: '/v1/webhooks' })).webhooks,
    deleteWebhook: (id) => send({ method: 'DELETE', path: `/v1/webhooks/${segment(id)}` }),
    testWebhook: (id) => send({ method: 'POST', path: `/v1/webhooks/${segment(id)}/test` }),
    importEvidence: (events, retryKey) => send({ method: 'POST', path: '/v1/evidence', body: { events }, idempotencyKey: retryKey }),
    evidencePage: ({ limit, cursor }) =>
      send({ method: 'GET', path: `/v1/evidence?${new URLSearchParams({ limit: String(limit), ...(cursor === undefined ? {} : { cursor }) })}` }),
    evidenceOf: (email) => send({ method: 'GET', path: `/v1/evidence?${new URLSearchParams({ email })}` }),
    deleteEvidence: (selection) => {
      const query = new URLSearchParams(Object.entries(selection).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return send({ method: 'DELETE', path: `/v1/evidence${query.size > 0 ? `?${query}` : ''}` });
    },
    health: () => send({ method: 'GET', path: '/healthz', anonymous: true }),
    async clockOffset() {
      let date: string | undefined;
      const sentAt = Date.now();
      await send({ method: 'GET', path: '/healthz', anonymous: true, onDate: (value) => (date = value) });
      const serverTime = date === undefined ? Number.NaN : Date.parse(date);
      // The header has whole seconds: its second began up to 999 ms before the server's real time.
      return Number.isNaN(serverTime) ? null : serverTime + 500 - (sentAt + Date.now()) / 2;
    },
    close: () => transport.close(),
  };
}
