import { randomBytes } from 'node:crypto';
import { ChangeCounter } from './postgres/changes.js';
import { DashboardRecords } from './postgres/dashboard.js';
import { clientConfig, createPool, Database } from './postgres/database.js';
import { IdempotencyRecords } from './postgres/idempotency.js';
import { JobRecords } from './postgres/jobs.js';
import { LimitRecords } from './postgres/limits.js';
import { migrate } from './postgres/migrations.js';
import { TokenRecords } from './postgres/tokens.js';
import { UserRecords } from './postgres/users.js';
import { WorkRecords } from './postgres/work.js';
import { SIGNING_SECRET_BYTES, type Store } from './store.js';

export interface PostgresStoreOptions {
  /** The clock, for tests of time-bound records (idempotency keys). */
  now?: () => Date;
}

/** Made by the first node that needs it; every later node reads the same one. */
async function signingSecret(db: Database): Promise<Uint8Array> {
  await db.sql.run("INSERT INTO signing_secrets (name, secret) VALUES ('jwt', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(SIGNING_SECRET_BYTES)]);
  const row = await db.sql.row<{ secret: Buffer }>("SELECT secret FROM signing_secrets WHERE name = 'jwt'");
  return new Uint8Array(row!.secret);
}

/**
 * The Store on a PostgreSQL database that any number of nodes share: connected, migrated to the
 * current schema and listening for changes to cached identities before it is returned. Put
 * together from one part per concern (postgres/), as the SQLite store is.
 */
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = createPool(databaseUrl);
  const changes = new ChangeCounter(clientConfig(databaseUrl));
  try {
    await migrate(pool);
    await changes.listen();
  } catch (error) {
    await Promise.allSettled([changes.close(), pool.end()]);
    throw error;
  }
  const db = new Database(pool, options.now ?? (() => new Date()));
  const idempotency = new IdempotencyRecords(db);
  const users = new UserRecords(db, idempotency);
  const tokens = new TokenRecords(db);
  const jobs = new JobRecords(db, users, idempotency);
  const limits = new LimitRecords(db);
  const work = new WorkRecords(db);
  const dashboard = new DashboardRecords(db);
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
    readResults: (jobId, page) => jobs.readResults(jobId, page),

    claimWork: (request) => work.claimWork(request),
    renewLeases: (leases, leaseMs) => work.renewLeases(leases, leaseMs),
    releaseLeases: (leases) => work.releaseLeases(leases),
    saveResults: (results) => work.saveResults(results),

    saveIdempotency: (record) => idempotency.saveIdempotency(record),

    reserveRequests: (userId, windowStart, count) => limits.reserveRequests(userId, windowStart, count),
    addToLoginCount: (key, windowStart, delta) => limits.addToLoginCount(key, windowStart, delta),

    createSession: (session) => dashboard.createSession(session),
    findSession: (idHash) => dashboard.findSession(idHash),
    deleteSession: (idHash) => dashboard.deleteSession(idHash),
    createUpload: (userId, fileName, content) => dashboard.createUpload(userId, fileName, content),
    findUpload: (userId, uploadId) => dashboard.findUpload(userId, uploadId),
    findUploadOfJob: (userId, jobId) => dashboard.findUploadOfJob(userId, jobId),
    attachUploadToJob: (userId, uploadId, jobId, column) => dashboard.attachUploadToJob(userId, uploadId, jobId, column),
    listJobs: (userId, limit) => dashboard.listJobs(userId, limit),

    dataVersion: async () => changes.version,
    signingSecret: () => signingSecret(db),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
}
