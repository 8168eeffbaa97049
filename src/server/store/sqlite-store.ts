import { Connection, openDatabase, type SqliteStoreOptions } from './sqlite/database.js';
import { IdempotencyRecords } from './sqlite/idempotency.js';
import { JobRecords } from './sqlite/jobs.js';
import { LimitRecords } from './sqlite/limits.js';
import { TokenRecords } from './sqlite/tokens.js';
import { UserRecords } from './sqlite/users.js';
import type { Store } from './store.js';

export { DATABASE_FILE, type SqliteStoreOptions } from './sqlite/database.js';

/**
 * The Store on one SQLite file, put together from one part per concern (sqlite/). Each part
 * prepares its statements once; every multi-step change is one transaction.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): Store {
  const db = openDatabase(dataDir, options);
  const connection = new Connection(db, options.now ?? (() => new Date()));
  const idempotency = new IdempotencyRecords(connection);
  const users = new UserRecords(connection, idempotency);
  const tokens = new TokenRecords(connection, users);
  const jobs = new JobRecords(connection, users, idempotency);
  const limits = new LimitRecords(connection);
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  return {
    createUser: (user) => users.createUser(user),
    findUserByEmail: (email) => users.findUserByEmail(email),
    findUserById: (id) => users.findUserById(id),
    listUsers: () => users.listUsers(),
    setRateLimit: (userId, limit, windowSeconds) => users.setRateLimit(userId, limit, windowSeconds),
    grantCredits: (userId, delta) => users.grantCredits(userId, delta),
    charge: (userId, amount, reason, jobId) => users.charge(userId, amount, reason, jobId),
    chargeWithKey: (userId, amount, reason, key) => users.chargeWithKey(userId, amount, reason, key),
    refund: (userId, amount, jobId, releaseKey) => users.refund(userId, amount, jobId, releaseKey),
    ledger: (userId) => users.ledger(userId),

    createApiToken: (userId, name, tokenHash) => tokens.createApiToken(userId, name, tokenHash),
    findApiTokenByHash: (tokenHash) => tokens.findApiTokenByHash(tokenHash),
    listApiTokens: (userId) => tokens.listApiTokens(userId),
    revokeApiToken: (userId, tokenId) => tokens.revokeApiToken(userId, tokenId),

    createJob: (userId, emails, key) => jobs.createJob(userId, emails, key),
    getJob: (userId, jobId) => jobs.getJob(userId, jobId),
    getJobWithResults: (userId, jobId) => jobs.getJobWithResults(userId, jobId),
    unfinishedJobIds: () => jobs.unfinishedJobIds(),
    pendingItems: (jobId, limit) => jobs.pendingItems(jobId, limit),
    saveResults: (jobId, results) => jobs.saveResults(jobId, results),

    saveIdempotency: (record) => idempotency.saveIdempotency(record),

    reserveRequests: (userId, windowStart, count) => limits.reserveRequests(userId, windowStart, count),
    countLoginAttempt: (key, windowStart) => limits.countLoginAttempt(key, windowStart),

    // SQLite's own counter of commits by other connections, other processes included; no table is
    // read, though it costs about what a small query does (the authenticator reads it sparingly).
    dataVersion: () => dataVersion.get()!,
    close: () => db.close(),
  };
}
