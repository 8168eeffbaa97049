import type {
  ApiToken,
  CachedResult,
  CacheEntry,
  ChargeOutcome,
  ClaimRequest,
  DailyCredits,
  DailyVerdicts,
  DashboardSession,
  Holder,
  HostSlotRequest,
  IdempotencyKey,
  JobCreation,
  JobDetails,
  JobProgress,
  JobListPlace,
  JobSummary,
  KeyedCharge,
  KeyedEnd,
  KeyedResponse,
  LeasedResult,
  LedgerEntry,
  ListUpload,
  NewSession,
  NewUser,
  PaidCharge,
  PendingUpload,
  Refund,
  ResultPageRequest,
  SavedResults,
  SavePolicy,
  StoredResult,
  TokenGrant,
  User,
  VerdictCount,
  WorkChunk,
} from './model.js';
import type { EgressBench, EgressBenches, VerificationResult } from '../../engine/core/types.js';
import type {
  AttemptOutcome,
  DeliveryBacklog,
  DeliveryClaim,
  DueDelivery,
  WebhookEndpoint,
  WebhookEndpointWithAttempts,
  WebhookEvent,
} from './webhook-model.js';
import type { EvidenceEvent } from '../../engine/evidence/event.js';
import type { EvidenceCount, EvidencePage, EvidencePageRequest, EvidenceSelection } from './evidence-model.js';
import type { EvidenceReceiver, NewReceiver } from './receiver-model.js';
import type { DeviceGrant, DevicePoll, NewDeviceGrant } from './device-grant-model.js';

export * from './model.js';
export * from './webhook-model.js';
export * from './evidence-model.js';
export * from './receiver-model.js';
export * from './device-grant-model.js';

/**
 * Everything the service keeps, as narrow parts by concern, with two implementations: SQLite
 * (open/sqlite-store.ts, the embedded default) and PostgreSQL (open/postgres-store.ts, for several
 * nodes); open/open-store.ts picks one. A consumer takes only the parts it uses (the job runner a
 * WorkQueue, the authenticator TokenStore and AccountStore). Nothing several nodes share lives
 * outside the store (caches excepted). Every method that moves credits does so atomically with the
 * work it pays for; the decisions both dialects make in such a transaction are written once, in
 * flows/.
 *
 * Every method is asynchronous, because a database server answers over the network. An
 * implementation on an embedded, synchronous database still keeps each atomic operation one
 * transaction that never spans an await: the Promise only carries its outcome.
 */
export interface StoreParts {
  readonly accounts: AccountStore;
  readonly tokens: TokenStore;
  readonly jobs: JobStore;
  readonly work: WorkQueue;
  readonly idempotency: IdempotencyStore;
  readonly limits: LimitStore;
  readonly dashboard: DashboardStore;
  readonly install: InstallStore;
  readonly holders: HolderRegistry;
  readonly resultCache: ResultCacheStore;
  readonly hostSlots: HostSlotStore;
  readonly egressBenches: EgressBenchStore;
  readonly webhooks: WebhookStore;
  readonly evidence: EvidenceStore;
  readonly evidenceReceivers: EvidenceReceiverStore;
  readonly deviceGrants: DeviceGrantStore;
}

export interface Store extends StoreParts {
  close(): Promise<void>;
}

export type StorePart = keyof StoreParts;

/**
 * The parts' names, listed once: a Record over every key of StoreParts, so a part added to the
 * interface and not here does not compile, and whoever wraps every part (the metrics wrapper) walks
 * this list rather than one of its own.
 */
const PART_NAMES: Record<StorePart, true> = {
  accounts: true,
  tokens: true,
  jobs: true,
  work: true,
  idempotency: true,
  limits: true,
  dashboard: true,
  install: true,
  holders: true,
  resultCache: true,
  hostSlots: true,
  egressBenches: true,
  webhooks: true,
  evidence: true,
  evidenceReceivers: true,
  deviceGrants: true,
};

export const STORE_PARTS = Object.keys(PART_NAMES) as readonly StorePart[];

/**
 * Liveness beside leases (docs/architecture.md "Liveness beside leases"): a lease says who holds
 * work, liveness whether that holder still exists. PostgreSQL knows it from the holder's own
 * session (pg_stat_activity); SQLite, on one host, from the holder's process. Whoever keeps work
 * under leases (the work queue, the host slots, webhook deliveries) writes the holder's id on each
 * lease and takes over at once the leases of holders that are gone; the lease's expiry only
 * bounds a holder that is alive but stuck.
 */
export interface HolderRegistry {
  /** Registers this process as a holder for as long as it lives (a lost database connection is re-made with the same id). */
  join(): Promise<Holder>;
}

/**
 * Politeness across processes (docs/architecture.md "Politeness across processes"): the SMTP
 * sessions open at one mail host from one egress, counted for every process sharing the store,
 * as numbered slots leased to holders. A slot whose holder is gone is free at once; one whose
 * lease ran out (a holder alive but stuck) too. An interactive take that finds the host full is
 * remembered for a second (HOST_SLOT_WAIT_MS): bulk takes there get nothing meanwhile, so the next slot freed
 * is the interactive one's whichever process frees it.
 */
export interface HostSlotStore {
  /** Takes a free slot at the host (fewer than `limit` held by live holders), atomically; its id, or undefined when none is free. */
  take(request: HostSlotRequest): Promise<string | undefined>;
  /** Gives the slot back (nothing when it is not held any more). */
  release(slotId: string): Promise<void>;
  /** Extends these slots to `ttlMs` from now; returns how many are still held. */
  renew(slotIds: readonly string[], ttlMs: number): Promise<number>;
}

/**
 * Egress benches (docs/architecture.md "Egress"): an egress refused for reputation for a domain, or
 * at a whole provider, is not used there until its cool-down ends, by any process on the store. The engine's
 * EgressBenches, as the store keeps it (times on the lease clock), and what operators are shown.
 */
export interface EgressBenchStore extends EgressBenches {
  /** Benches the egress for what `bench.provider` covers for `cooldownMs` from now; a longer bench there stays. */
  bench(bench: EgressBench): Promise<void>;
  benched(provider: string): Promise<string[]>;
  /** Every bench in force now, by provider then egress. */
  inForce(): Promise<BenchInForce[]>;
  /** Deletes the benches whose cool-down is over (the bench expirer's turn); returns how many. */
  expire(): Promise<number>;
}

/** A bench in force: `until` in epoch milliseconds; `reason` the refusal that set it. */
export interface BenchInForce {
  egress: string;
  provider: string;
  until: number;
  reason: string;
}

/**
 * An account's own evidence about addresses (docs/evidence.md): the bounces, deliveries,
 * complaints and deferrals of its own mail. Each account sees only its own; addresses compare by
 * the engine's address key, as the result cache does where the provider folds case. Rows go with
 * the account and under `--retention`, and never into the shared result cache.
 */
export interface EvidenceStore {
  /** Keeps the events in one transaction; an event identical to one kept (or to another in the batch) is kept once. `added`: the new rows. */
  addEvidence(userId: number, events: readonly EvidenceEvent[]): Promise<{ added: number }>;
  /** The account's events about these addresses (at `since` or later, when given), newest first, under each address's key; addresses with none are absent. */
  evidenceFor(userId: number, emails: readonly string[], since?: string): Promise<Map<string, EvidenceEvent[]>>;
  /** The account's events, newest imports first, a page at a time. */
  listEvidence(userId: number, request: EvidencePageRequest): Promise<EvidencePage>;
  /** How many events the account holds, by kind and source. */
  evidenceCounts(userId: number): Promise<EvidenceCount[]>;
  /** Deletes the account's events (all, or those selected); how many. */
  deleteEvidence(userId: number, selection: EvidenceSelection): Promise<number>;
  /** Deletes up to `limit` events of any account imported before `before` (ISO); how many (`--retention`). */
  deleteEvidenceBefore(before: string, limit: number): Promise<number>;
}

/** Users, their credits and the ledger of every balance change. */
export interface AccountStore {
  /** Throws StoreError `user_exists` when the address (compared case-insensitively) is taken. */
  createUser(user: NewUser): Promise<User>;
  findUserByEmail(email: string): Promise<User | undefined>;
  findUserById(id: number): Promise<User | undefined>;
  listUsers(): Promise<User[]>;
  setRateLimit(userId: number, limit: number, windowSeconds: number): Promise<void>;
  /**
   * Sets the login password (null: none) and ends every sign-in of the user, in one transaction: a
   * new session epoch (their login JWTs stop) and their dashboard sessions deleted. API tokens stay,
   * each revoked on its own. Throws StoreError `user_not_found` for no such user.
   */
  setPassword(userId: number, passwordHash: string | null): Promise<void>;
  /**
   * Adds (or with a negative delta, removes) credits: the admin's "grant". Returns the new balance;
   * throws StoreError `negative_balance` rather than take a balance below zero, `user_not_found` for no such user.
   */
  grantCredits(userId: number, delta: number): Promise<number>;
  /** Takes `amount` credits if the balance covers it, else nothing; writes the ledger (the charge's row is its `chargeId`). */
  charge(userId: number, amount: number, reason: 'verify', jobId?: string | null): Promise<ChargeOutcome>;
  /**
   * `charge` for a request with an Idempotency-Key, in one transaction with claiming the key, so
   * that of identical requests (on any number of service instances) exactly one is charged and
   * runs; the others find it `running`, then `recorded` once saveIdempotency stores its response.
   * A `short` balance claims nothing. A claim older than IDEMPOTENCY_CLAIM_TTL_MS was left by a
   * process that died after charging: it is taken over as `charged`, without a second charge (on
   * the claim's charge, `chargeId`; a run whose charge was refunded left a response or no claim).
   * Throws StoreError `idempotency_conflict` when the key is live with another request hash.
   */
  chargeWithKey(userId: number, amount: number, reason: 'verify', key: IdempotencyKey): Promise<KeyedCharge>;
  /**
   * Gives a charge back (the work it paid for failed, or its result costs nothing), at most once: the
   * refund's ledger row names the charge's (a unique key), so a refund retried after its COMMIT's
   * answer was lost gives nothing more (`refunded` 0). With `end`, the keyed request's end is
   * written in the same transaction (KeyedEnd): a refunded request's retry never runs free.
   */
  refund(userId: number, charge: PaidCharge, end?: KeyedEnd): Promise<Refund>;
  /** The user's ledger lines (ledger-lines.ts), oldest first; with `last`, only the last so many, read from the end. */
  ledger(userId: number, last?: number): Promise<LedgerEntry[]>;
  /**
   * Deletes the user and everything of theirs, in one transaction: tokens, sessions, jobs with
   * their addresses and results, webhook endpoints and deliveries, idempotency records, the
   * verdicts their jobs left in the result cache, and their ledger (amounts included). False when
   * there is no such user.
   */
  deleteUser(userId: number): Promise<boolean>;
}

/** API tokens: only their SHA-256 hashes are stored. */
export interface TokenStore {
  /** A token that may do what `grant` says (FULL_GRANT when left out). */
  createApiToken(userId: number, name: string, tokenHash: string, grant?: TokenGrant): Promise<ApiToken>;
  /** The token with this hash, unless revoked (expired ones too: the caller tells them apart); marks it used. */
  findApiTokenByHash(tokenHash: string): Promise<ApiToken | undefined>;
  listApiTokens(userId: number): Promise<ApiToken[]>;
  /** False when the token does not exist, is another user's, or is revoked already. */
  revokeApiToken(userId: number, tokenId: string): Promise<boolean>;
}

/**
 * Logging in from a device (docs/api.md "Logging in from a device"; RFC 8628): a device's request for
 * a token, approved or denied by someone signed in to the dashboard, then exchanged once. Only the
 * SHA-256 of the device code and of the normalised user code are kept. Times follow the store's clock.
 */
export interface DeviceGrantStore {
  /**
   * Keeps a new request, pending until `lifetimeMs` from now; requests expired an hour ago and more
   * are deleted on the way. False, and nothing written, when its user code is taken (draw another).
   */
  create(grant: NewDeviceGrant): Promise<boolean>;
  /** The request with this user code, whatever its state (the page says why it cannot be approved). */
  findByUserCode(userCodeHash: string): Promise<DeviceGrant | undefined>;
  /**
   * Approves (the request then belongs to this user) or denies a pending request that has not
   * expired, atomically; false when it is not such a request any more (decided, used or expired).
   */
  decide(userCodeHash: string, userId: number, approve: boolean): Promise<boolean>;
  /** One poll by the device (DevicePoll); when approved, the token is created with `tokenHash` and the code is used up. */
  poll(deviceCodeHash: string, tokenHash: string): Promise<DevicePoll>;
}

/** Bulk jobs as their owner sees them: created (and paid for) at once, read while and after they run. */
export interface JobStore {
  /**
   * In one transaction: charge `emails.length` credits, create the job and its items (and the
   * idempotency record, when a key is given, holding the acknowledgement `{jobId, queued}` with
   * status 200). All or nothing: on a short balance nothing is written. The caller passes the list
   * already de-duplicated; item positions follow its order. When the key is live already, its job
   * is returned as `replayed` and nothing is charged; with another request hash it throws
   * StoreError `idempotency_conflict`.
   */
  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey, details?: JobDetails): Promise<JobCreation>;
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
  /** How many stored results of the job have each verdict (verdicts with none are left out). No owner check. */
  verdictCounts(jobId: string): Promise<VerdictCount[]>;
  /**
   * The user's newest jobs first, at most `limit`, with the file each was made from in the dashboard;
   * with `after`, those listed after that job (a page: newest first, then by id). With `sandbox`,
   * only the sandbox jobs (true) or only the live ones (false), so that a page is full of them.
   */
  listJobs(userId: number, limit: number, after?: JobListPlace, sandbox?: boolean): Promise<JobSummary[]>;
  /**
   * Deletes the job when it is this user's, in one transaction: its addresses, results and
   * uploaded file, and the verdicts about its addresses the user's jobs left in the result cache;
   * the ledger keeps its amounts. A job still processing stops there: its
   * addresses without a result are given back (one ledger row), and results of chunks in flight
   * are written nowhere (their leases hold nothing any more). What it gave back; undefined when
   * the user has no such job.
   */
  deleteJob(userId: number, jobId: string): Promise<{ refunded: number } | undefined>;
  /** Deletes, as deleteJob does, up to `limit` jobs that completed before `before` (ISO); returns how many (`--retention`). */
  deleteFinishedBefore(before: string, limit: number): Promise<number>;
}

/** Work distribution (docs/architecture.md "Work distribution"): any number of runners, on any number of machines. */
export interface WorkQueue {
  /**
   * Claims up to `maxItems` pending items that nobody holds (never leased, released, or under an
   * expired lease) under a new lease lasting `leaseMs`, atomically, so that two runners are never
   * handed the same item at once. Fair: the items come from the user with claimable work who has
   * the fewest items in flight (leased, not expired), not one of `skipUsers`, from that user's
   * oldest job with any (one of `onlyJobs`, when given), and all from one domain of it (not one of
   * `skipDomains`). Undefined when nothing is claimable.
   */
  claimWork(request: ClaimRequest): Promise<WorkChunk | undefined>;
  /**
   * Extends these leases to `leaseMs` from now (the database's clock), on the items they still
   * hold, and returns the leases that still hold any: a lease lost to another runner (expired and
   * claimed, or taken over from a holder thought gone) is left alone and missing from the answer.
   */
  renewLeases(leases: readonly string[], leaseMs: number): Promise<string[]>;
  /**
   * Makes claimable again the items whose temporary answer's due time has come (docs/architecture.md
   * "Settling later"): each is then claimed once, like any pending item, and asked again. Returns how
   * many. Cheap (a range of the due index), run every second by the due waker (src/server/maintenance).
   */
  wakeDue(): Promise<number>;
  /**
   * Takes over the leases of holders that are gone (their items claimable at once); returns how
   * many items it freed. Cheap enough for the rescuer (src/server/maintenance) to run every second.
   */
  rescue(): Promise<number>;
  /**
   * Items of every job without a final result: `pending` claimable, `leased` under a live lease,
   * `waiting` for the next try of a temporary answer (the queue's depth, for metrics).
   */
  depth(): Promise<{ pending: number; leased: number; waiting: number }>;
  /** Gives the items of these leases that have no result back, claimable at once (a clean stop). */
  releaseLeases(leases: readonly string[]): Promise<void>;
  /**
   * Writes a batch of results in one transaction; `processed` and completion follow from them. A
   * result counts only under the lease that holds its item (one from a lease since taken over by
   * another runner is ignored), and an item keeps the first result written for it. Refunds happen
   * in the same transaction: of a result unknown because of the verifier's own condition as it is
   * written, of a completed job's other unknowns with `refundUnknown` (exactly once: a job
   * completes in one transaction). Answers how many jobs the batch completed and how many credits
   * it gave back.
   */
  saveResults(results: readonly LeasedResult[], policy?: SavePolicy): Promise<SavedResults>;
}

/**
 * Verdicts kept for reuse across jobs and accounts (docs/architecture.md "The result cache"): a
 * verdict found lately is not asked of the mail host again. Each entry is kept per address and per
 * account that found it, until its own `freshUntil`; the policy (what is kept how long, whose
 * verdicts are reused) is the caller's.
 */
export interface ResultCacheStore {
  /**
   * The newest verdict for each of these address keys still fresh at `now` (epoch ms): found by
   * anyone, or with `userId` only by that account's jobs.
   */
  recall(addressKeys: readonly string[], now: number, userId?: number): Promise<Map<string, CachedResult>>;
  /** Keeps these verdicts (replacing what the same account had for the address). */
  remember(entries: readonly CacheEntry[]): Promise<void>;
  /** Drops what is no longer fresh at `now`, then the least fresh beyond `maxEntries`; returns how many went. */
  prune(now: number, maxEntries: number): Promise<number>;
}

/**
 * Webhooks (docs/architecture.md "Webhooks"): an account's endpoints, and the deliveries of events
 * to them, kept under leases as the work queue's items are (a lease names its holder; the work
 * queue's rescue frees the deliveries of holders that are gone, with one liveness check for both).
 * `bulk_job.completed` deliveries are enqueued by WorkQueue.saveResults in the transaction that
 * completes the job.
 */
export interface WebhookStore {
  /** A new endpoint; undefined, and nothing written, when the user has `limit` endpoints (not removed) already. */
  createEndpoint(userId: number, endpoint: { url: string; description: string | null; secret: string }, limit?: number): Promise<WebhookEndpoint | undefined>;
  /** The user's endpoints (removed ones never), oldest first, each with its newest attempts. */
  listEndpoints(userId: number): Promise<WebhookEndpointWithAttempts[]>;
  /** The endpoint when it is this user's and not removed, else undefined. */
  findEndpoint(userId: number, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Removes the endpoint and stops its deliveries; false when it is not this user's or is removed already. */
  removeEndpoint(userId: number, endpointId: string): Promise<boolean>;
  /**
   * A delivery of this event to one endpoint, due at once (a test event); false, and nothing
   * written, when it is a `webhook.test` and the endpoint's account enqueued `testsPerMinute` of
   * those within the last minute.
   */
  enqueue(endpointId: string, event: WebhookEvent, testsPerMinute?: number): Promise<boolean>;
  /**
   * Claims up to `max` due deliveries (their time has come, nobody holds them, their endpoint is
   * live) under a lease each lasting `leaseMs`, naming the holder; two runners are never handed one
   * delivery at once. Fair across accounts: the account with the fewest deliveries in flight first,
   * then the oldest due, none beyond the claim's `perAccount` in flight for one account.
   */
  claimDeliveries(claim: DeliveryClaim): Promise<DueDelivery[]>;
  /**
   * Records an attempt and what follows (a retry at a later time, or the end), freeing the
   * delivery, in one transaction; 410 also disables the endpoint. False, and nothing written, when
   * the lease no longer holds the delivery (it was taken over).
   */
  recordAttempt(record: AttemptOutcome): Promise<boolean>;
  /** Gives these leased deliveries back, due at once, no attempt recorded (a clean stop cut them short). */
  releaseDeliveries(leases: readonly string[]): Promise<void>;
  /** The deliveries due and not held, for metrics. */
  backlog(): Promise<DeliveryBacklog>;
  /** Deletes deliveries settled and attempts made before `before` (ISO), and endpoints removed before it; returns how many rows went. */
  prune(before: string): Promise<number>;
}

/**
 * An account's evidence receivers (docs/evidence.md "Live from an ESP"): the URLs SendGrid or SNS
 * post bounces and deliveries to. A post finds its receiver by the SHA-256 of the URL's secret.
 */
export interface EvidenceReceiverStore {
  /** A new receiver; undefined, and nothing written, when the user has `limit` receivers already. */
  createReceiver(userId: number, receiver: NewReceiver, limit?: number): Promise<EvidenceReceiver | undefined>;
  /** The user's receivers, oldest first. */
  listReceivers(userId: number): Promise<EvidenceReceiver[]>;
  /** The receiver whose URL secret has this SHA-256, whoever's it is. */
  findReceiverByHash(urlHash: string): Promise<EvidenceReceiver | undefined>;
  /** Deletes the receiver: its URL is refused from then on; false when it is not this user's. */
  removeReceiver(userId: number, receiverId: string): Promise<boolean>;
  /** Notes that the receiver's subscription was confirmed (SNS) or a post added evidence, now. */
  noteReceived(receiverId: string, what: 'confirmed' | 'events'): Promise<void>;
}

/** Responses kept for Idempotency-Keys (claimed together with the charge, see AccountStore.chargeWithKey). */
export interface IdempotencyStore {
  /** Stores the response for a key (ending its claim, or replacing an expired record); records past their TTL are pruned on the way. */
  saveIdempotency(record: Omit<KeyedResponse, 'createdAt'>): Promise<void>;
}

/** Rate limits and login counters: fixed windows, counted here so that several instances share them. */
export interface LimitStore {
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
}

/** The dashboard's sign-ins (only the SHA-256 of a session id is stored) and uploaded lists. */
export interface DashboardStore {
  /** Stores a new session; sessions past their expiry are pruned on the way. */
  createSession(session: NewSession): Promise<void>;
  /** The unexpired session with this id hash. */
  findSession(idHash: string): Promise<DashboardSession | undefined>;
  deleteSession(idHash: string): Promise<void>;
  /**
   * Keeps an uploaded list file; returns its id. Undefined, and nothing kept, when the user's
   * uploads not submitted yet would hold more than `maxPendingBytes` with it (checked in the
   * same transaction: uploads at once cannot pass it together).
   */
  createUpload(userId: number, fileName: string, content: Buffer, maxPendingBytes?: number): Promise<string | undefined>;
  /** The user's uploads not submitted yet (made into no job), newest first. */
  pendingUploads(userId: number): Promise<PendingUpload[]>;
  /** Deletes an upload of this user not submitted yet (a submitted one goes with its job); false when there is none. */
  deleteUpload(userId: number, uploadId: string): Promise<boolean>;
  /** Deletes up to `limit` uploads not submitted, made before `before` (ISO), oldest first; returns how many (`--upload-retention`). */
  deleteUploadsBefore(before: string, limit: number): Promise<number>;
  /** The upload when it belongs to this user, else undefined. */
  findUpload(userId: number, uploadId: string): Promise<ListUpload | undefined>;
  /** The upload a job of this user was made from, if it was made from one. */
  findUploadOfJob(userId: number, jobId: string): Promise<ListUpload | undefined>;
  /** Records the job made from an upload and the column its addresses came from (once: a second call changes nothing). */
  attachUploadToJob(userId: number, uploadId: string, jobId: string, column: string): Promise<void>;
  /** The user's ledger summed by UTC day from `since` (an ISO time) on, oldest first; days without entries left out. */
  dailyCredits(userId: number, since: string): Promise<DailyCredits[]>;
  /** The verdicts of the user's bulk jobs completed from `since` on, counted by the UTC day they completed. */
  dailyVerdicts(userId: number, since: string): Promise<DailyVerdicts[]>;
}

/** What every node of one install shares beyond the records: change notices and the login signing secret. */
export interface InstallStore {
  /**
   * A number that changes whenever a change committed elsewhere (another service instance,
   * `mailverify admin`) becomes visible here; this instance's own changes leave it alone. Caches
   * of what others may change (tokens, rate limits) are dropped when it moves. Kept rather than a
   * short TTL alone because it makes an operator's revocation or new limit apply from the next
   * request; a server database gives the same signal by notifying its listeners of such changes.
   */
  dataVersion(): Promise<number>;
  /**
   * Calls `listener` whenever a node (this one included) may have created a job, and when what it
   * missed is unknown, so that a runner takes a small job at once rather than at its next look, a
   * second later. PostgreSQL notifies its listeners; on SQLite nothing does, and runners look every second.
   */
  onNewWork(listener: () => void): Promise<void>;
  /**
   * Calls `listener` whenever jobs with work may have been deleted (a job, an account), and when
   * what it missed is unknown, so that runners stop asking about their addresses at once rather
   * than at their next lease renewal. On the same path as onNewWork: PostgreSQL notifies every
   * node at the deletion's commit; SQLite tells this process's listeners only.
   */
  onWorkDeleted(listener: () => void): Promise<void>;
  /**
   * The secret login JWTs are signed with, made on first use and the same for every node on this
   * store, so that each accepts the JWTs of all the others.
   */
  signingSecret(): Promise<Uint8Array>;
  /** Resolves when the database answers a trivial query: what /readyz asks. */
  ping(): Promise<void>;
}
