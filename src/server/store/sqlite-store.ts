import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import type { VerificationResult } from '../../engine/types.js';
import { migrate } from './migrations.js';
import {
  IDEMPOTENCY_CLAIM_TTL_MS,
  IDEMPOTENCY_TTL_MS,
  StoreError,
  type ApiTokenRecord,
  type ChargeOutcome,
  type IdempotencyKey,
  type IdempotencyRecord,
  type JobCreation,
  type JobProgress,
  type KeyedCharge,
  type LedgerEntry,
  type NewUser,
  type PendingItem,
  type Store,
  type User,
} from './store.js';

export const DATABASE_FILE = 'mailverify.db';

export interface SqliteStoreOptions {
  /** The clock, for tests of time-bound records (idempotency keys). */
  now?: () => Date;
  /** How long a writer waits for another process's write lock (`admin` beside `serve`). */
  busyTimeoutMs?: number;
}

/** The status stored for a key that is claimed by a running request and has no response yet. */
const CLAIMED = 0;

/** A token's "last used" time is rewritten at most this often, so authenticating is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface UserRow {
  id: number;
  email: string;
  password_hash: string | null;
  balance: number;
  rate_limit: number;
  rate_window_seconds: number;
  created_at: string;
}
interface TokenRow {
  id: string;
  user_id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}
interface LedgerRow {
  user_id: number;
  delta: number;
  balance_after: number;
  reason: LedgerEntry['reason'];
  job_id: string | null;
  created_at: string;
}
interface JobRow {
  id: string;
  user_id: number;
  total: number;
  processed: number;
  completed_at: string | null;
}
interface IdempotencyRow {
  user_id: number;
  route: string;
  key: string;
  request_hash: string;
  status_code: number;
  body: string;
  created_at: string;
}

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  balance: row.balance,
  rateLimit: row.rate_limit,
  rateWindowSeconds: row.rate_window_seconds,
  createdAt: row.created_at,
});
const toToken = (row: TokenRow): ApiTokenRecord => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});
const toLedger = (row: LedgerRow): LedgerEntry => ({
  userId: row.user_id,
  delta: row.delta,
  balanceAfter: row.balance_after,
  reason: row.reason,
  jobId: row.job_id,
  createdAt: row.created_at,
});
const toJob = (row: JobRow): JobProgress => ({
  id: row.id,
  userId: row.user_id,
  status: row.completed_at === null ? 'processing' : 'completed',
  total: row.total,
  processed: row.processed,
});
const toIdempotency = (row: IdempotencyRow): IdempotencyRecord => ({
  userId: row.user_id,
  route: row.route,
  key: row.key,
  requestHash: row.request_hash,
  statusCode: row.status_code,
  body: row.body,
  createdAt: row.created_at,
});

/** Creates the data directory (0700) and an empty database file (0600: it holds password hashes) when missing. */
function prepareDataDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DATABASE_FILE);
  // SQLite gives the -wal and -shm files the mode of the main file, so setting it here covers all three.
  closeSync(openSync(file, 'a', 0o600));
  return file;
}

export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): Store {
  const db = new Sqlite(prepareDataDir(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5_000}`);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return new SqliteStore(db, options.now ?? (() => new Date()));
}

/** The Store on one SQLite file. Statements are prepared once; every multi-step change is one transaction. */
class SqliteStore implements Store {
  private readonly sql;

  constructor(
    private readonly db: Sqlite.Database,
    private readonly now: () => Date,
  ) {
    const prepare = <Row = unknown>(source: string) => db.prepare<unknown[], Row>(source);
    this.sql = {
      insertUser: prepare<UserRow>(
        `INSERT INTO users (email, password_hash, balance, rate_limit, rate_window_seconds, created_at)
         VALUES (?, ?, 0, ?, ?, ?) RETURNING *`,
      ),
      userByEmail: prepare<UserRow>('SELECT * FROM users WHERE email = ?'),
      userById: prepare<UserRow>('SELECT * FROM users WHERE id = ?'),
      allUsers: prepare<UserRow>('SELECT * FROM users ORDER BY id'),
      setRateLimit: prepare('UPDATE users SET rate_limit = ?, rate_window_seconds = ? WHERE id = ?'),
      // The balance moves only through these two conditional updates: neither can take it below zero.
      addCredits: prepare<{ balance: number }>(
        'UPDATE users SET balance = balance + ? WHERE id = ? AND balance + ? >= 0 RETURNING balance',
      ),
      takeCredits: prepare<{ balance: number }>(
        'UPDATE users SET balance = balance - ? WHERE id = ? AND balance >= ? RETURNING balance',
      ),
      insertLedger: prepare(
        'INSERT INTO ledger (user_id, delta, balance_after, reason, job_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      ledgerOf: prepare<LedgerRow>('SELECT * FROM ledger WHERE user_id = ? ORDER BY id'),

      insertToken: prepare<TokenRow>(
        'INSERT INTO api_tokens (id, user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
      ),
      liveTokenByHash: prepare<TokenRow>('SELECT * FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL'),
      touchToken: prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?'),
      liveTokensOf: prepare<TokenRow>(
        'SELECT * FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id',
      ),
      revokeToken: prepare(
        'UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL',
      ),

      insertJob: prepare('INSERT INTO jobs (id, user_id, total, created_at, completed_at) VALUES (?, ?, ?, ?, ?)'),
      // One statement for the whole list: SQLite walks the JSON array itself, far faster than a call per row.
      insertItems: prepare(
        'INSERT INTO job_items (job_id, position, email) SELECT ?, key, value FROM json_each(?)',
      ),
      jobOf: prepare<JobRow>('SELECT * FROM jobs WHERE id = ? AND user_id = ?'),
      resultsOf: prepare<{ result: string }>(
        'SELECT result FROM job_items WHERE job_id = ? AND result IS NOT NULL ORDER BY position',
      ),
      unfinishedJobs: prepare<{ id: string }>('SELECT id FROM jobs WHERE completed_at IS NULL ORDER BY created_at, id'),
      pendingOf: prepare<{ position: number; email: string }>(
        'SELECT position, email FROM job_items WHERE job_id = ? AND result IS NULL ORDER BY position LIMIT ?',
      ),
      // `result IS NULL`: an item keeps its first result, so a re-verification never replaces or doubles it.
      saveResult: prepare('UPDATE job_items SET result = ? WHERE job_id = ? AND position = ? AND result IS NULL'),
      countProcessed: prepare(
        `UPDATE jobs SET processed = processed + ?,
           completed_at = CASE WHEN processed + ? >= total THEN ? ELSE NULL END
         WHERE id = ? AND completed_at IS NULL`,
      ),

      // A claim or a recorded response: whatever holds the key.
      idempotencyOf: prepare<IdempotencyRow>(
        'SELECT * FROM idempotency WHERE user_id = ? AND key = ? AND route = ? AND created_at >= ?',
      ),
      releaseClaim: prepare(`DELETE FROM idempotency WHERE user_id = ? AND key = ? AND route = ? AND status_code = ${CLAIMED}`),
      upsertIdempotency: prepare(
        `INSERT INTO idempotency (user_id, route, key, request_hash, status_code, body, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, route, key) DO UPDATE SET
           request_hash = excluded.request_hash, status_code = excluded.status_code,
           body = excluded.body, created_at = excluded.created_at`,
      ),
      pruneIdempotency: prepare('DELETE FROM idempotency WHERE created_at < ?'),

      reserveRequests: prepare<{ count: number }>(
        `INSERT INTO rate_windows (user_id, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (user_id, window_start) DO UPDATE SET count = count + excluded.count
         RETURNING count`,
      ),
      pruneWindows: prepare('DELETE FROM rate_windows WHERE user_id = ? AND window_start < ?'),
      countLoginAttempt: prepare<{ count: number }>(
        `INSERT INTO login_windows (window_start, key, count) VALUES (?, ?, 1)
         ON CONFLICT (window_start, key) DO UPDATE SET count = count + 1
         RETURNING count`,
      ),
      pruneLoginWindows: prepare('DELETE FROM login_windows WHERE window_start < ?'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
  }

  private timestamp(): string {
    return this.now().toISOString();
  }

  private idempotencyCutoff(): string {
    return new Date(this.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString();
  }

  // users and credits

  createUser(user: NewUser): User {
    return this.db.transaction(() => {
      if (this.findUserByEmail(user.email)) throw new StoreError('user_exists', `a user ${user.email} exists already`);
      const row = this.sql.insertUser.get(
        user.email,
        user.passwordHash,
        user.rateLimit,
        user.rateWindowSeconds,
        this.timestamp(),
      )!;
      if (user.balance === 0) return toUser(row);
      return { ...toUser(row), balance: this.grantCredits(row.id, user.balance) };
    }).immediate();
  }

  findUserByEmail(email: string): User | undefined {
    const row = this.sql.userByEmail.get(email);
    return row && toUser(row);
  }

  findUserById(id: number): User | undefined {
    const row = this.sql.userById.get(id);
    return row && toUser(row);
  }

  listUsers(): User[] {
    return this.sql.allUsers.all().map(toUser);
  }

  setRateLimit(userId: number, limit: number, windowSeconds: number): void {
    const { changes } = this.sql.setRateLimit.run(limit, windowSeconds, userId);
    if (changes === 0) throw new StoreError('user_not_found', `no user with id ${userId}`);
  }

  grantCredits(userId: number, delta: number): number {
    return this.db.transaction(() => {
      const moved = this.sql.addCredits.get(delta, userId, delta);
      if (!moved) {
        const user = this.findUserById(userId);
        if (!user) throw new StoreError('user_not_found', `no user with id ${userId}`);
        throw new StoreError('negative_balance', `the balance is ${user.balance}; removing ${-delta} would take it below zero`);
      }
      this.writeLedger(userId, delta, moved.balance, 'grant', null);
      return moved.balance;
    }).immediate();
  }

  charge(userId: number, amount: number, reason: 'verify', jobId: string | null = null): ChargeOutcome {
    return this.db.transaction((): ChargeOutcome => {
      const taken = this.takeCredits(userId, amount, reason, jobId);
      return taken === undefined ? this.shortOf(userId, amount) : { ok: true, balance: taken };
    }).immediate();
  }

  chargeWithKey(userId: number, amount: number, reason: 'verify', key: IdempotencyKey): KeyedCharge {
    const claim = { userId, ...key, statusCode: CLAIMED, body: '' };
    return this.db.transaction((): KeyedCharge => {
      const held = this.liveKey(userId, key);
      if (held) {
        if (held.statusCode !== CLAIMED) return { kind: 'recorded', record: held };
        if (this.now().getTime() - Date.parse(held.createdAt) < IDEMPOTENCY_CLAIM_TTL_MS) return { kind: 'running' };
        // The claim of a run that died after charging: that charge pays for this run, which claims the key afresh.
        this.writeIdempotency(claim);
        return { kind: 'charged', balance: this.findUserById(userId)!.balance };
      }
      const balance = this.takeCredits(userId, amount, reason, null);
      if (balance === undefined) {
        const short = this.shortOf(userId, amount);
        return { kind: 'short', balance: short.balance, required: short.required };
      }
      this.writeIdempotency(claim);
      return { kind: 'charged', balance };
    }).immediate();
  }

  refund(userId: number, amount: number, jobId: string | null = null, releaseKey?: Omit<IdempotencyKey, 'requestHash'>): number {
    return this.db.transaction(() => {
      const moved = this.sql.addCredits.get(amount, userId, amount);
      if (!moved) throw new StoreError('user_not_found', `no user with id ${userId}`);
      this.writeLedger(userId, amount, moved.balance, 'refund', jobId);
      if (releaseKey) this.sql.releaseClaim.run(userId, releaseKey.key, releaseKey.route);
      return moved.balance;
    }).immediate();
  }

  ledger(userId: number): LedgerEntry[] {
    return this.sql.ledgerOf.all(userId).map(toLedger);
  }

  /** The new balance, or undefined (and nothing written) when the balance does not cover `amount`. Call inside a transaction. */
  private takeCredits(userId: number, amount: number, reason: LedgerEntry['reason'], jobId: string | null): number | undefined {
    const taken = this.sql.takeCredits.get(amount, userId, amount);
    if (!taken) return undefined;
    this.writeLedger(userId, -amount, taken.balance, reason, jobId);
    return taken.balance;
  }

  private shortOf(userId: number, required: number): { ok: false; balance: number; required: number } {
    const user = this.findUserById(userId);
    if (!user) throw new StoreError('user_not_found', `no user with id ${userId}`);
    return { ok: false, balance: user.balance, required };
  }

  private writeLedger(userId: number, delta: number, balanceAfter: number, reason: LedgerEntry['reason'], jobId: string | null): void {
    this.sql.insertLedger.run(userId, delta, balanceAfter, reason, jobId, this.timestamp());
  }

  // API tokens

  createApiToken(userId: number, name: string, tokenHash: string): ApiTokenRecord {
    if (!this.findUserById(userId)) throw new StoreError('user_not_found', `no user with id ${userId}`);
    return toToken(this.sql.insertToken.get(randomUUID(), userId, name, tokenHash, this.timestamp())!);
  }

  findApiTokenByHash(tokenHash: string): ApiTokenRecord | undefined {
    const row = this.sql.liveTokenByHash.get(tokenHash);
    if (!row) return undefined;
    const now = this.now();
    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      row.last_used_at = now.toISOString();
      this.sql.touchToken.run(row.last_used_at, row.id);
    }
    return toToken(row);
  }

  listApiTokens(userId: number): ApiTokenRecord[] {
    return this.sql.liveTokensOf.all(userId).map(toToken);
  }

  revokeApiToken(userId: number, tokenId: string): boolean {
    return this.sql.revokeToken.run(this.timestamp(), tokenId, userId).changes > 0;
  }

  // bulk jobs

  createJob(userId: number, emails: string[], idempotency?: IdempotencyKey): JobCreation {
    return this.db.transaction((): JobCreation => {
      if (idempotency) {
        const replay = this.replayedJob(userId, idempotency);
        if (replay) return replay;
      }
      const jobId = randomUUID();
      if (this.takeCredits(userId, emails.length, 'bulk', jobId) === undefined) return this.shortOf(userId, emails.length);
      const createdAt = this.timestamp();
      this.sql.insertJob.run(jobId, userId, emails.length, createdAt, emails.length === 0 ? createdAt : null);
      this.sql.insertItems.run(jobId, JSON.stringify(emails));
      if (idempotency) {
        this.saveIdempotency({ userId, ...idempotency, statusCode: 200, body: JSON.stringify({ jobId, queued: emails.length }) });
      }
      return { ok: true, jobId, queued: emails.length, replayed: false };
    }).immediate();
  }

  /** The job an earlier request with this key created. */
  private replayedJob(userId: number, idempotency: IdempotencyKey): JobCreation | undefined {
    const earlier = this.liveKey(userId, idempotency);
    if (!earlier) return undefined;
    const ack = JSON.parse(earlier.body) as Partial<{ jobId: string; queued: number }>;
    if (typeof ack.jobId !== 'string' || typeof ack.queued !== 'number') throw new Error(`the record of Idempotency-Key ${idempotency.key} holds no job`);
    return { ok: true, jobId: ack.jobId, queued: ack.queued, replayed: true };
  }

  getJob(userId: number, jobId: string): JobProgress | undefined {
    const row = this.sql.jobOf.get(jobId, userId);
    return row && toJob(row);
  }

  getJobWithResults(userId: number, jobId: string): { job: JobProgress; results: VerificationResult[] } | undefined {
    // One read transaction: a batch of results landing between the two reads cannot make them disagree.
    return this.db.transaction(() => {
      const job = this.getJob(userId, jobId);
      if (!job) return undefined;
      return { job, results: this.sql.resultsOf.all(jobId).map((row) => JSON.parse(row.result) as VerificationResult) };
    })();
  }

  unfinishedJobIds(): string[] {
    return this.sql.unfinishedJobs.all().map((row) => row.id);
  }

  pendingItems(jobId: string, limit: number): PendingItem[] {
    return this.sql.pendingOf.all(jobId, limit).map((row) => ({ jobId, position: row.position, email: row.email }));
  }

  saveResults(jobId: string, results: Array<{ position: number; result: VerificationResult }>): void {
    this.db.transaction(() => {
      let written = 0;
      for (const { position, result } of results) {
        written += this.sql.saveResult.run(JSON.stringify(result), jobId, position).changes;
      }
      if (written > 0) this.sql.countProcessed.run(written, written, this.timestamp(), jobId);
    }).immediate();
  }

  // idempotency

  saveIdempotency(record: Omit<IdempotencyRecord, 'createdAt'>): void {
    this.db.transaction(() => {
      this.sql.pruneIdempotency.run(this.idempotencyCutoff());
      this.writeIdempotency(record);
    }).immediate();
  }

  /** The claim or response holding this key within its 24 h; a StoreError `idempotency_conflict` when it was for another request. */
  private liveKey(userId: number, { key, route, requestHash }: IdempotencyKey): IdempotencyRecord | undefined {
    const row = this.sql.idempotencyOf.get(userId, key, route, this.idempotencyCutoff());
    if (row && row.request_hash !== requestHash) throw new StoreError('idempotency_conflict', `Idempotency-Key ${key} was used with another request`);
    return row && toIdempotency(row);
  }

  private writeIdempotency(record: Omit<IdempotencyRecord, 'createdAt'>): void {
    const { userId, route, key, requestHash, statusCode, body } = record;
    this.sql.upsertIdempotency.run(userId, route, key, requestHash, statusCode, body, this.timestamp());
  }

  // rate limits

  reserveRequests(userId: number, windowStart: number, count: number): number {
    // One upsert is atomic on its own; no explicit transaction, because BEGIN/COMMIT would triple its cost.
    const total = this.sql.reserveRequests.get(userId, windowStart, count)!.count;
    // The row is new (a user's first reservation in a window): their older windows stop mattering.
    if (total === count) this.sql.pruneWindows.run(userId, windowStart);
    return total;
  }

  countLoginAttempt(key: string, windowStart: number): number {
    const { count } = this.sql.countLoginAttempt.get(windowStart, key)!;
    // The first attempt under a key in a window: a moment to drop every past window, of every key.
    if (count === 1) this.sql.pruneLoginWindows.run(windowStart);
    return count;
  }

  dataVersion(): number {
    // SQLite's own counter of commits by other connections, other processes included; no table is
    // read, though it costs about what a small query does (the authenticator reads it sparingly).
    return this.sql.dataVersion.get()!;
  }

  close(): void {
    this.db.close();
  }
}
