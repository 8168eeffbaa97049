import type { VerificationResult, Verdict } from '../../engine/types.js';

/**
 * Everything the service keeps, behind one interface, with two implementations: SQLite
 * (sqlite-store.ts, the embedded default) and PostgreSQL (postgres-store.ts, for several nodes);
 * open-store.ts picks one. Nothing that several nodes must share lives outside it (caches excepted).
 * Every method that moves credits does so atomically with the work it pays for.
 *
 * Every method is asynchronous, because a database server answers over the network. An
 * implementation on an embedded, synchronous database still keeps each atomic operation one
 * transaction that never spans an await: the Promise only carries its outcome.
 */

/** What `admin user add` gives a new user unless told otherwise (DESIGN.md §2: 20 requests per 1 s). */
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
}

export interface ApiTokenRecord {
  id: string;
  userId: number;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface LedgerEntry {
  userId: number;
  delta: number;
  balanceAfter: number;
  reason: 'grant' | 'verify' | 'bulk' | 'refund';
  jobId: string | null;
  createdAt: string;
}

export type ChargeOutcome = { ok: true; balance: number } | { ok: false; balance: number; required: number };

/** A created job, or the job a request with the same Idempotency-Key created before (`replayed`, nothing charged). */
export type JobCreation = { ok: true; jobId: string; queued: number; replayed: boolean } | { ok: false; balance: number; required: number };

export interface JobProgress {
  id: string;
  userId: number;
  status: 'processing' | 'completed';
  total: number;
  processed: number;
}

export interface PendingItem {
  jobId: string;
  /** Position of the address in the de-duplicated job list. */
  position: number;
  email: string;
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
  domain: string;
  items: PendingItem[];
}

export interface ClaimRequest {
  /** Most items in the chunk. */
  maxItems: number;
  /** How long the lease lasts unless renewed. */
  leaseMs: number;
  /** Domains the claiming runner is busy with already: take another domain's items, if there are any. */
  skipDomains?: readonly string[];
}

/** A result as the runner hands it back: for an item of a chunk, under that chunk's lease. */
export interface LeasedResult {
  lease: string;
  jobId: string;
  position: number;
  result: VerificationResult;
}

/**
 * The domain an item is claimed by, stored with it at job creation: the text after the last `@`,
 * lower-cased (a malformed address may have none: then it is '' and such items go together).
 */
export function itemDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase();
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
}

/** An Idempotency-Key as a request presents it: the key, on which route, for which body. */
export interface IdempotencyKey {
  key: string;
  route: string;
  requestHash: string;
}

/** What charging for a request with an Idempotency-Key came to (see Store.chargeWithKey). */
export type KeyedCharge =
  | { kind: 'charged'; balance: number }
  | { kind: 'short'; balance: number; required: number }
  | { kind: 'recorded'; record: IdempotencyRecord }
  | { kind: 'running' };

/** A stored response for an Idempotency-Key, so a replay answers exactly as the first call did. */
export interface IdempotencyRecord {
  userId: number;
  key: string;
  route: string;
  requestHash: string;
  statusCode: number;
  body: string;
  createdAt: string;
}

/** A dashboard sign-in: the session id itself lives only in the browser's cookie; the store keeps its SHA-256. */
export interface DashboardSession {
  idHash: string;
  userId: number;
  /** The value every form of this session carries (see dashboard/csrf.ts). */
  csrfSecret: string;
  createdAt: string;
  expiresAt: string;
}

export type NewSession = Pick<DashboardSession, 'idHash' | 'userId' | 'csrfSecret'> & { expiresAt: Date };

/** A list file uploaded in the dashboard, kept so that its rows can be merged with the job's results. */
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

export interface Store {
  // users and credits
  /** Throws StoreError `user_exists` when the address (compared case-insensitively) is taken. */
  createUser(user: NewUser): Promise<User>;
  findUserByEmail(email: string): Promise<User | undefined>;
  findUserById(id: number): Promise<User | undefined>;
  listUsers(): Promise<User[]>;
  setRateLimit(userId: number, limit: number, windowSeconds: number): Promise<void>;
  /**
   * Adds (or with a negative delta, removes) credits: the admin's "grant". Returns the new balance;
   * throws StoreError `negative_balance` rather than take a balance below zero, `user_not_found` for no such user.
   */
  grantCredits(userId: number, delta: number): Promise<number>;
  /** Takes `amount` credits if the balance covers it, else nothing; writes the ledger. */
  charge(userId: number, amount: number, reason: 'verify', jobId?: string | null): Promise<ChargeOutcome>;
  /**
   * `charge` for a request with an Idempotency-Key, in one transaction with claiming the key, so
   * that of identical requests (on any number of service instances) exactly one is charged and
   * runs; the others find it `running`, then `recorded` once saveIdempotency stores its response.
   * A `short` balance claims nothing. A claim older than IDEMPOTENCY_CLAIM_TTL_MS was left by a
   * process that died after charging: it is taken over as `charged`, without a second charge.
   * Throws StoreError `idempotency_conflict` when the key is live with another request hash.
   */
  chargeWithKey(userId: number, amount: number, reason: 'verify', key: IdempotencyKey): Promise<KeyedCharge>;
  /** Gives credits back (the work they paid for failed); with `releaseKey`, drops that key's claim in the same transaction so a retry runs afresh. */
  refund(userId: number, amount: number, jobId?: string | null, releaseKey?: Omit<IdempotencyKey, 'requestHash'>): Promise<number>;
  ledger(userId: number): Promise<LedgerEntry[]>;

  // API tokens (only SHA-256 hashes are stored)
  createApiToken(userId: number, name: string, tokenHash: string): Promise<ApiTokenRecord>;
  /** The live (not revoked) token with this hash; marks it used. */
  findApiTokenByHash(tokenHash: string): Promise<ApiTokenRecord | undefined>;
  listApiTokens(userId: number): Promise<ApiTokenRecord[]>;
  /** False when the token does not exist, is another user's, or is revoked already. */
  revokeApiToken(userId: number, tokenId: string): Promise<boolean>;

  // bulk jobs
  /**
   * In one transaction: charge `emails.length` credits, create the job and its items (and the
   * idempotency record, when a key is given, holding the acknowledgement `{jobId, queued}` with
   * status 200). All or nothing: on a short balance nothing is written. The caller passes the list
   * already de-duplicated; item positions follow its order. When the key is live already, its job
   * is returned as `replayed` and nothing is charged; with another request hash it throws
   * StoreError `idempotency_conflict`.
   */
  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey): Promise<JobCreation>;
  /** The job when it belongs to this user, else undefined (never another user's). */
  getJob(userId: number, jobId: string): Promise<JobProgress | undefined>;
  /**
   * The job with the results stored so far, in job order, read as one snapshot (so `processed`
   * is the number of results); undefined as for getJob.
   */
  getJobWithResults(userId: number, jobId: string): Promise<{ job: JobProgress; results: VerificationResult[] } | undefined>;
  /**
   * One page of a job's stored results, in job order: those after position `after` (-1 for the
   * first page), at most `limit`, only of the given verdicts when some are given. Each is the
   * result's JSON as stored (the interface's object, see resultJson), so that a long list is sent
   * page by page without being parsed or held whole. No owner check: read the job first.
   */
  readResults(jobId: string, page: ResultPageRequest): Promise<StoredResult[]>;

  // work distribution (DESIGN.md §5): any number of runners, on any number of machines
  /**
   * Claims up to `maxItems` pending items that nobody holds (never leased, released, or under an
   * expired lease) under a new lease lasting `leaseMs`, atomically, so that two runners are never
   * handed the same item at once. Fair: the items come from the user with claimable work who has
   * the fewest items in flight (leased, not expired), from that user's oldest job with any, and
   * all from one domain of it (not one of `skipDomains`). Undefined when nothing is claimable.
   */
  claimWork(request: ClaimRequest): Promise<WorkChunk | undefined>;
  /** Extends these leases to `leaseMs` from now, on the items they still hold; a lease lost to another runner is left alone. */
  renewLeases(leases: readonly string[], leaseMs: number): Promise<void>;
  /** Gives the items of these leases that have no result back, claimable at once (a clean stop). */
  releaseLeases(leases: readonly string[]): Promise<void>;
  /**
   * Writes a batch of results in one transaction; `processed` and completion follow from them. A
   * result counts only under the lease that holds its item (one from a lease since taken over by
   * another runner is ignored), and an item keeps the first result written for it.
   */
  saveResults(results: readonly LeasedResult[]): Promise<void>;

  // idempotency
  /** Stores the response for a key (ending its claim, or replacing an expired record); records past their TTL are pruned on the way. */
  saveIdempotency(record: Omit<IdempotencyRecord, 'createdAt'>): Promise<void>;

  // rate limits: fixed windows, counted here so that several instances share them
  /**
   * Adds `count` requests of this user to the window starting at `windowStart` (epoch seconds) and
   * returns the window's total so far, the added ones included. An instance reserves several
   * requests at once for a busy user (see rate-limit.ts), so this is not a write per request.
   */
  reserveRequests(userId: number, windowStart: number, count: number): Promise<number>;
  /**
   * Adds `delta` to the login counter under `key` (an account, a client address, or both) in the
   * window starting at `windowStart` (epoch seconds) and returns the count after it: 1 counts an
   * attempt, -1 takes back one that succeeded, 0 only reads. Windows are at most
   * LOGIN_WINDOW_MAX_SECONDS long; counters of older windows are dropped.
   */
  addToLoginCount(key: string, windowStart: number, delta: number): Promise<number>;

  // dashboard: sessions (only the SHA-256 of a session id is stored) and uploaded lists
  /** Stores a new session; sessions past their expiry are pruned on the way. */
  createSession(session: NewSession): Promise<void>;
  /** The unexpired session with this id hash. */
  findSession(idHash: string): Promise<DashboardSession | undefined>;
  deleteSession(idHash: string): Promise<void>;
  /** Keeps an uploaded list file; returns its id. */
  createUpload(userId: number, fileName: string, content: Buffer): Promise<string>;
  /** The upload when it belongs to this user, else undefined. */
  findUpload(userId: number, uploadId: string): Promise<ListUpload | undefined>;
  /** The upload a job of this user was made from, if it was made from one. */
  findUploadOfJob(userId: number, jobId: string): Promise<ListUpload | undefined>;
  /** Records the job made from an upload and the column its addresses came from (once: a second call changes nothing). */
  attachUploadToJob(userId: number, uploadId: string, jobId: string, column: string): Promise<void>;
  /** The user's newest jobs first, at most `limit`. */
  listJobs(userId: number, limit: number): Promise<JobSummary[]>;

  /**
   * A number that changes whenever a change committed elsewhere (another service instance,
   * `mailverify admin`) becomes visible here; this instance's own changes leave it alone. Caches
   * of what others may change (tokens, rate limits) are dropped when it moves. Kept rather than a
   * short TTL alone because it makes an operator's revocation or new limit apply from the next
   * request; a server database gives the same signal by notifying its listeners of such changes.
   */
  dataVersion(): Promise<number>;

  /**
   * The secret login JWTs are signed with, made on first use and the same for every node on this
   * store, so that each accepts the JWTs of all the others.
   */
  signingSecret(): Promise<Uint8Array>;

  close(): Promise<void>;
}
