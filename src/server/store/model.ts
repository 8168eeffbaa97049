import { randomBytes } from 'node:crypto';
import type { VerificationResult, Verdict } from '../../engine/core/types.js';
import { API_SCOPES, type ApiScope } from '../../wire/contract.js';

/** The records the store's parts (store.ts) hand out and take, and the rules about them that no database decides. */

/** What `admin user add` gives a new user unless told otherwise (docs/api.md: 20 requests per 1 s). */
export const DEFAULT_RATE_LIMIT = 20;
export const DEFAULT_RATE_WINDOW_SECONDS = 1;
/** The longest window a login counter is kept for (see addToLoginCount). */
export const LOGIN_WINDOW_MAX_SECONDS = 3_600;
/** An Idempotency-Key is honoured for this long; older records are ignored and pruned. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claimed key waits for its response before a retry may take the request over: longer
 * than any single verification runs (greylist retries included), so only a claim whose process
 * died is ever taken over.
 */
export const IDEMPOTENCY_CLAIM_TTL_MS = 15 * 60 * 1000;
/** Random bytes in a new login-JWT signing secret (HS256 wants at least its 32-byte output). */
export const SIGNING_SECRET_BYTES = 32;

export type StoreErrorCode = 'user_exists' | 'user_not_found' | 'negative_balance' | 'idempotency_conflict';

/** A refusal the caller can act on (a 409, an admin's exit code); anything else the store throws is a bug or I/O trouble. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** The store could not be opened: a database that does not answer or refuses us, a data file of a newer schema. */
export class StoreUnavailableError extends Error {
  constructor(where: string, cause: unknown) {
    super(`cannot open ${where}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

export interface User {
  id: number;
  email: string;
  passwordHash: string | null;
  balance: number;
  /** Requests allowed per window. */
  rateLimit: number;
  rateWindowSeconds: number;
  createdAt: string;
  /**
   * Named by every login JWT of the user (docs/api.md "Conventions"): a new one, at a password
   * change, ends them all. Random, so that no other user, even one given a deleted user's id, has it.
   */
  sessionEpoch: string;
}

/** A user's next session epoch (User.sessionEpoch), as random as a new user's (migrations' 020). */
export function newSessionEpoch(): string {
  return randomBytes(16).toString('hex');
}

export interface ApiToken extends TokenGrant {
  id: string;
  userId: number;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  test: boolean;
}

/**
 * What a token may do and until when (docs/api.md "Token scopes"); `expiresAt` null: never expires.
 * `test`: a sandbox token (`mv_test_…`, docs/api.md "Sandbox"), answered by the sandbox, charged
 * nothing, and seeing only sandbox jobs.
 */
export interface TokenGrant {
  scopes: readonly ApiScope[];
  expiresAt: string | null;
  /** Left out: live. */
  test?: boolean;
}

/** A new token's grant when none is asked for: everything, for ever, live (as before tokens had scopes). */
export const FULL_GRANT: TokenGrant = { scopes: API_SCOPES, expiresAt: null, test: false };

export interface LedgerEntry {
  userId: number;
  delta: number;
  balanceAfter: number;
  reason: 'grant' | 'verify' | 'bulk' | 'refund';
  jobId: string | null;
  createdAt: string;
}

/** A charge taken (`chargeId`: its ledger row, what a refund of it names), or the balance that fell short. */
export type ChargeOutcome = { ok: true; balance: number; chargeId: number } | { ok: false; balance: number; required: number };

/**
 * A charge to give back: its ledger row (`id`; null only for a claim kept from before charges had
 * one) and its amount. A charge is refunded at most once (AccountStore.refund).
 */
export interface PaidCharge {
  id: number | null;
  amount: number;
}

/**
 * How a keyed request ends when its charge is given back, written in the refund's transaction:
 * with `response`, that response is recorded for the key (a retry replays it and never runs on
 * the refunded charge); without, the key's claim is dropped (a retry runs afresh and pays again).
 */
export interface KeyedEnd {
  key: IdempotencyKey;
  response?: { statusCode: number; body: string };
}

/** What a refund did: `refunded` credits given back (0 when the charge had been refunded already), and the balance after. */
export interface Refund {
  refunded: number;
  balance: number;
}

/** A created job, or the job a request with the same Idempotency-Key created before (`replayed`, nothing charged). */
export type JobCreation = { ok: true; jobId: string; queued: number; replayed: boolean } | { ok: false; balance: number; required: number };

/** What a job carries beside its addresses. */
export interface JobDetails {
  /** What the submitter called it (a list's file name). */
  name?: string;
  /** Every address asked afresh: no verdict reused from the result cache (see ResultCacheStore). */
  fresh?: boolean;
  /** `settleWithin`: no address is asked again later than this many seconds after the job's creation. */
  settleWithinSeconds?: number;
  /** A sandbox job (a test token's, `--local --sandbox`): charged nothing, answered by the sandbox, seen only by test tokens. */
  sandbox?: boolean;
}

export interface JobProgress {
  id: string;
  userId: number;
  /** What the submitter called it (a list's file name), if anything. */
  name: string | null;
  status: 'processing' | 'completed';
  total: number;
  /** Addresses settled: a waiting one is not (docs/architecture.md "Settling later"). */
  processed: number;
  /** Addresses whose answer was temporary, waiting for their next try. */
  waiting: number;
  /** When the earliest of them is asked again (ISO); null when none waits. */
  nextAttemptAt: string | null;
  /** A sandbox job (JobDetails.sandbox): only test tokens read it. */
  sandbox: boolean;
}

export interface PendingItem {
  jobId: string;
  /** Position of the address in the de-duplicated job list. */
  position: number;
  email: string;
  /** Its temporary answers so far (see Tries in src/engine/core/retry-schedule.ts). */
  attempts: number;
  /** When the first of them came (epoch ms); null before one did. */
  firstAnsweredAt: number | null;
}

/**
 * Pending items of one job at one domain, claimed under one lease: nobody else is handed them
 * until the lease expires or is released, and results for them are stored only under it.
 */
export interface WorkChunk {
  /** The lease token: random, one per chunk. */
  lease: string;
  jobId: string;
  userId: number;
  /** The job asked for every address afresh (JobDetails.fresh). */
  fresh: boolean;
  domain: string;
  items: PendingItem[];
  /** The job's `settleWithin` as a time (epoch ms): no try of its items after it; null when the job has none. */
  settleBy: number | null;
  /** A sandbox job's chunk: answered by the engine's sandbox, no server asked. */
  sandbox: boolean;
}

/** What writing a batch of results did (WorkQueue.saveResults). */
export interface SavedResults {
  /** Jobs the batch completed. */
  completedJobs: number;
  /** Credits it gave back (refunds of unknowns), for the refund metric. */
  refunded: number;
}

/** What the owner of the work decided about writing its results. */
export interface SavePolicy {
  /**
   * Give back, when a job completes, the tokens of its `unknown` results (`--refund-unknown`): one
   * ledger row per job. Those unknown because of the verifier's own condition are refunded anyway, as written.
   */
  refundUnknown?: boolean;
}

/** A verdict kept for reuse (see ResultCacheStore), with when and by whose job it was found. */
export interface CachedResult {
  result: VerificationResult;
  verifiedAt: string;
  userId: number;
}

/** A verdict to keep for reuse: whose job found it, and until when (epoch ms) it may be reused. */
export interface CacheEntry {
  addressKey: string;
  userId: number;
  result: VerificationResult;
  verifiedAt: string;
  freshUntil: number;
}

export interface ClaimRequest {
  /** Most items in the chunk. */
  maxItems: number;
  /** How long the lease lasts unless renewed. */
  leaseMs: number;
  /** Domains the claiming runner is busy with already: take another domain's items, if there are any. */
  skipDomains?: readonly string[];
  /**
   * Users whose work the claiming runner does not take now: it is full, and will take a chunk only
   * for users with nothing in it, so that a full runner never makes a newcomer wait for its backlog.
   */
  skipUsers?: readonly number[];
  /** Only these jobs' items, when given: a runner of its own jobs (`bulk submit --local`) never works another's. */
  onlyJobs?: readonly string[];
  /** The claiming runner's holder id (see HolderRegistry): its leases are taken over at once when it is gone. */
  holder?: string;
}

/** A result as the runner hands it back: for an item of a chunk, under that chunk's lease. */
export interface LeasedResult {
  lease: string;
  jobId: string;
  position: number;
  result: VerificationResult;
  /**
   * Set when the answer is temporary and the item is asked again at this time (epoch ms): the
   * result is kept as the item's answer so far, counted neither as processed nor for a refund.
   */
  dueAt?: number;
  /** The verdict to keep in the result cache, kept only when the result is written (its item still held under the lease). */
  keep?: CacheEntry;
}

export interface ResultPageRequest {
  after: number;
  limit: number;
  verdicts?: readonly Verdict[];
}

/** A stored result: its item's position and the result's JSON text. */
export interface StoredResult {
  position: number;
  json: string;
  /** The answer so far was temporary: the address waits for its next try (its JSON has `nextAttemptAt`). SQLite says 0 or 1. */
  waiting: boolean | number;
}

/** An Idempotency-Key as a request presents it: the key, on which route, for which body. */
export interface IdempotencyKey {
  key: string;
  route: string;
  requestHash: string;
}

/** What charging for a request with an Idempotency-Key came to (see Store.chargeWithKey). */
export type KeyedCharge =
  | { kind: 'charged'; balance: number; chargeId: number | null }
  | { kind: 'short'; balance: number; required: number }
  | { kind: 'recorded'; record: KeyedResponse }
  | { kind: 'running' };

/** A stored response for an Idempotency-Key, so a replay answers exactly as the first call did. */
export interface KeyedResponse {
  userId: number;
  key: string;
  route: string;
  requestHash: string;
  statusCode: number;
  body: string;
  /** On a claim, the ledger row of the charge the claimed request runs on (what its refund names); null on a response. */
  chargeId?: number | null;
  createdAt: string;
}

/** A dashboard sign-in: the session id itself lives only in the browser's cookie; the store keeps its SHA-256. */
export interface DashboardSession {
  idHash: string;
  userId: number;
  /** The value every form of this session carries (see dashboard/common/csrf.ts). */
  csrfSecret: string;
  createdAt: string;
  expiresAt: string;
}

export type NewSession = Pick<DashboardSession, 'idHash' | 'userId' | 'csrfSecret'> & { expiresAt: Date };

/** A list file uploaded in the dashboard, kept so that its rows can be merged with the job's results. */
/** An uploaded list not submitted yet, as its owner sees it listed. */
export interface PendingUpload {
  id: string;
  fileName: string;
  bytes: number;
  createdAt: string;
}

export interface ListUpload {
  id: string;
  userId: number;
  fileName: string;
  content: Buffer;
  /** The email column chosen when the list was submitted (a 1-based number), null before. */
  column: string | null;
  jobId: string | null;
  createdAt: string;
}

/** A job as the dashboard lists it: its progress, when it was made and from which file (null for API jobs). */
/** Where a page of a user's jobs ends: the last job listed, by its place in the order. */
export interface JobListPlace {
  createdAt: string;
  id: string;
}

export interface JobSummary extends JobProgress {
  createdAt: string;
  fileName: string | null;
}

export interface NewUser {
  email: string;
  passwordHash: string | null;
  balance: number;
  rateLimit: number;
  rateWindowSeconds: number;
}

/** How many results of a job have one verdict. */
export interface VerdictCount {
  verdict: Verdict;
  count: number;
}

/**
 * Whether a holder may work its leases now (docs/architecture.md "Liveness beside leases"): it
 * loses its standing when it cannot show the store it is alive, before others may take its leases
 * over, and has it again once it can.
 */
export interface HolderStanding {
  standing(): boolean;
  /** Calls `listener` each time the holder loses its standing: stop working its leases now. */
  onLapse(listener: () => void): void;
}

/** A process that holds leases, registered for as long as it lives (see HolderRegistry). */
export interface Holder extends HolderStanding {
  /** Written on every lease it takes. */
  readonly id: string;
  /** Ends the registration (a clean stop: its leases are released separately). */
  leave(): Promise<void>;
}

/** A holder that never loses its standing: a process on the one host of a SQLite store. */
export const ALWAYS_STANDING: HolderStanding = { standing: () => true, onLapse: () => undefined };

/** A session slot wanted at a mail host (see HostSlotStore.take). */
export interface HostSlotRequest {
  /** How our connections leave: a source address, a proxy (without credentials), or `default`. */
  egress: string;
  /** The mail host's IP address, as the engine's per-host limit counts it. */
  host: string;
  /** Most slots held at once at this host from this egress, by every holder together. */
  limit: number;
  /** The holder's id (HolderRegistry.join): a slot whose holder is gone is free. */
  holder: string;
  /** How long the slot lasts unless renewed (HostSlotStore.renew): the bound on a holder alive but stuck. */
  ttlMs: number;
  /** `interactive` for a session someone waits for (`POST /v1/verify`): bulk takes at a full host make way for it. */
  priority: 'interactive' | 'bulk';
}

/** Raised by a store call when the database does not answer (down, restarting, out of time): a condition, not a bug. */
export class StoreFault extends Error {
  constructor(cause: unknown) {
    super(`the store does not answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreFault';
  }
}

/** One UTC day of the ledger (the dashboard's overview): credits charged, refunded and granted. */
export interface DailyCredits {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  charged: number;
  refunded: number;
  granted: number;
}

/** How many results of bulk jobs completed on a UTC day had a verdict. */
export interface DailyVerdicts {
  day: string;
  verdict: Verdict;
  count: number;
}
