import { randomBytes } from 'node:crypto';
import { ChangeNotices } from '../postgres/changes.js';
import { PostgresDashboard } from '../postgres/dashboard.js';
import { PostgresDeviceGrants } from '../postgres/device-grants.js';
import { clientConfig, createPool, Database } from '../postgres/database.js';
import { PostgresIdempotency } from '../postgres/idempotency.js';
import { PostgresJobs } from '../postgres/jobs.js';
import { PostgresLimits } from '../postgres/limits.js';
import { postgresHolders } from '../postgres/holders.js';
import { PostgresHostSlots } from '../postgres/host-slots.js';
import { PostgresEgressBenches } from '../postgres/egress-benches.js';
import { migrate } from '../postgres/migrate.js';
import { PostgresTokens } from '../postgres/tokens.js';
import { PostgresAccounts } from '../postgres/accounts.js';
import { PostgresReceivers } from '../postgres/receivers.js';
import { PostgresResultCache } from '../postgres/result-cache.js';
import { PostgresWebhooks } from '../postgres/webhooks.js';
import { PostgresWork } from '../postgres/work.js';
import { PostgresEvidence } from '../postgres/evidence.js';
import { SIGNING_SECRET_BYTES, type Store } from '../store.js';

export interface PostgresStoreOptions {
  /** The clock, for tests of time-bound records (idempotency keys, leases); else leases follow the database's clock. */
  now?: () => Date;
  /** The time limit of every call (see open-store.ts). */
  timeoutMs: number;
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
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions): Promise<Store> {
  const config = clientConfig(databaseUrl, options.timeoutMs);
  const pool = createPool(databaseUrl, options.timeoutMs);
  const changes = new ChangeNotices(config);
  try {
    await migrate(pool);
    await changes.listen();
  } catch (error) {
    await Promise.allSettled([changes.close(), pool.end()]);
    throw error;
  }
  const db = new Database(pool, options.now ?? (() => new Date()), options.now !== undefined);
  const idempotency = new PostgresIdempotency(db);
  const accounts = new PostgresAccounts(db, idempotency);
  const jobs = new PostgresJobs(db, accounts, idempotency);
  const webhooks = new PostgresWebhooks(db, jobs);
  const resultCache = new PostgresResultCache(db);
  const tokens = new PostgresTokens(db);
  return {
    accounts,
    tokens,
    jobs,
    work: new PostgresWork(db, accounts, webhooks, resultCache),
    idempotency,
    limits: new PostgresLimits(db),
    dashboard: new PostgresDashboard(db),
    install: {
      dataVersion: async () => changes.version,
      onNewWork: async (listener) => changes.onNewWork(listener),
      onWorkDeleted: async (listener) => changes.onWorkDeleted(listener),
      signingSecret: () => signingSecret(db),
      ping: async () => void (await db.sql.run('SELECT 1')),
    },
    holders: postgresHolders(config),
    resultCache,
    hostSlots: new PostgresHostSlots(db),
    egressBenches: new PostgresEgressBenches(db),
    webhooks,
    evidence: new PostgresEvidence(db),
    evidenceReceivers: new PostgresReceivers(db),
    deviceGrants: new PostgresDeviceGrants(db, tokens),
    async close() {
      await changes.close();
      await pool.end();
    },
  };
}
