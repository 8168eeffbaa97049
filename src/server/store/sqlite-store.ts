import { DashboardRecords } from './sqlite/dashboard.js';
import { Connection, openDatabase, type SqliteStoreOptions } from './sqlite/database.js';
import { IdempotencyRecords } from './sqlite/idempotency.js';
import { JobRecords } from './sqlite/jobs.js';
import { LimitRecords } from './sqlite/limits.js';
import { loadOrCreateSigningSecret } from './sqlite/signing-secret.js';
import { TokenRecords } from './sqlite/tokens.js';
import { UserRecords } from './sqlite/users.js';
import { WorkRecords } from './sqlite/work.js';
import type { Store } from './store.js';

export { DATABASE_FILE, type SqliteStoreOptions } from './sqlite/database.js';

/**
 * The Store on one SQLite file, put together from one part per concern (sqlite/). Each part
 * prepares its statements once; every multi-step change is one transaction. The parts are
 * synchronous (better-sqlite3), so each transaction runs whole before the method's Promise
 * settles: none can span an await, nor interleave with another on this connection.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): Store {
  const db = openDatabase(dataDir, options);
  const connection = new Connection(db, options.now ?? (() => new Date()));
  const idempotency = new IdempotencyRecords(connection);
  const users = new UserRecords(connection, idempotency);
  const tokens = new TokenRecords(connection, users);
  const jobs = new JobRecords(connection, users, idempotency);
  const limits = new LimitRecords(connection);
  const work = new WorkRecords(connection);
  const dashboard = new DashboardRecords(connection);
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  return {
    createUser: async (user) => users.createUser(user),
    findUserByEmail: async (email) => users.findUserByEmail(email),
    findUserById: async (id) => users.findUserById(id),
    listUsers: async () => users.listUsers(),
    setRateLimit: async (userId, limit, windowSeconds) => users.setRateLimit(userId, limit, windowSeconds),
    grantCredits: async (userId, delta) => users.grantCredits(userId, delta),
    charge: async (userId, amount, reason, jobId) => users.charge(userId, amount, reason, jobId),
    chargeWithKey: async (userId, amount, reason, key) => users.chargeWithKey(userId, amount, reason, key),
    refund: async (userId, amount, jobId, releaseKey) => users.refund(userId, amount, jobId, releaseKey),
    ledger: async (userId) => users.ledger(userId),

    createApiToken: async (userId, name, tokenHash) => tokens.createApiToken(userId, name, tokenHash),
    findApiTokenByHash: async (tokenHash) => tokens.findApiTokenByHash(tokenHash),
    listApiTokens: async (userId) => tokens.listApiTokens(userId),
    revokeApiToken: async (userId, tokenId) => tokens.revokeApiToken(userId, tokenId),

    createJob: async (userId, emails, key) => jobs.createJob(userId, emails, key),
    getJob: async (userId, jobId) => jobs.getJob(userId, jobId),
    getJobWithResults: async (userId, jobId) => jobs.getJobWithResults(userId, jobId),
    readResults: async (jobId, page) => jobs.readResults(jobId, page),

    claimWork: async (request) => work.claimWork(request),
    renewLeases: async (leases, leaseMs) => work.renewLeases(leases, leaseMs),
    releaseLeases: async (leases) => work.releaseLeases(leases),
    saveResults: async (results) => work.saveResults(results),

    saveIdempotency: async (record) => idempotency.saveIdempotency(record),

    reserveRequests: async (userId, windowStart, count) => limits.reserveRequests(userId, windowStart, count),
    addToLoginCount: async (key, windowStart, delta) => limits.addToLoginCount(key, windowStart, delta),

    createSession: async (session) => dashboard.createSession(session),
    findSession: async (idHash) => dashboard.findSession(idHash),
    deleteSession: async (idHash) => dashboard.deleteSession(idHash),
    createUpload: async (userId, fileName, content) => dashboard.createUpload(userId, fileName, content),
    findUpload: async (userId, uploadId) => dashboard.findUpload(userId, uploadId),
    findUploadOfJob: async (userId, jobId) => dashboard.findUploadOfJob(userId, jobId),
    attachUploadToJob: async (userId, uploadId, jobId, column) => dashboard.attachUploadToJob(userId, uploadId, jobId, column),
    listJobs: async (userId, limit) => dashboard.listJobs(userId, limit),

    // SQLite's own counter of commits by other connections, other processes included; no table is
    // read, though it costs about what a small query does (the authenticator reads it sparingly).
    dataVersion: async () => dataVersion.get()!,
    signingSecret: async () => loadOrCreateSigningSecret(dataDir),
    close: async () => {
      db.close();
    },
  };
}
