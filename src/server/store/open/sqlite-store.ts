import { SqliteDashboard } from '../sqlite/dashboard.js';
import { SqliteDeviceGrants } from '../sqlite/device-grants.js';
import { Connection, openDatabase, type SqliteStoreOptions } from '../sqlite/database.js';
import { SqliteIdempotency } from '../sqlite/idempotency.js';
import { SqliteJobs } from '../sqlite/jobs.js';
import { SqliteLimits } from '../sqlite/limits.js';
import { processHolders } from '../sqlite/holders.js';
import { SqliteHostSlots } from '../sqlite/host-slots.js';
import { SqliteEgressBenches } from '../sqlite/egress-benches.js';
import { promised } from '../sqlite/promised.js';
import { SqliteReceivers } from '../sqlite/receivers.js';
import { SqliteResultCache } from '../sqlite/result-cache.js';
import { loadOrCreateSigningSecret } from '../sqlite/signing-secret.js';
import { SqliteTokens } from '../sqlite/tokens.js';
import { SqliteAccounts } from '../sqlite/accounts.js';
import { SqliteWebhooks } from '../sqlite/webhooks.js';
import { SqliteWork } from '../sqlite/work.js';
import { SqliteEvidence } from '../sqlite/evidence.js';
import type { Store } from '../store.js';

export { type SqliteStoreOptions } from '../sqlite/database.js';
export { DATABASE_FILE } from '../data-dir.js';

/**
 * The Store on one SQLite file, put together from one part per concern (sqlite/). Each part
 * prepares its statements once; every multi-step change is one transaction. The parts are
 * synchronous (better-sqlite3), so each transaction runs whole before the method's Promise
 * settles: none can span an await, nor interleave with another on this connection.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): Store {
  const db = openDatabase(dataDir, options);
  const connection = new Connection(db, options.now ?? (() => new Date()));
  const idempotency = new SqliteIdempotency(connection);
  const accounts = new SqliteAccounts(connection, idempotency);
  const jobs = new SqliteJobs(connection, accounts, idempotency);
  const webhooks = new SqliteWebhooks(connection, jobs);
  const resultCache = new SqliteResultCache(connection);
  const tokens = new SqliteTokens(connection, accounts);
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  return {
    accounts: promised(accounts),
    tokens: promised(tokens),
    jobs: promised(jobs),
    work: promised(new SqliteWork(connection, accounts, webhooks, resultCache)),
    idempotency: promised(idempotency),
    limits: promised(new SqliteLimits(connection)),
    dashboard: promised(new SqliteDashboard(connection)),
    install: {
      // SQLite's own counter of commits by other connections, other processes included; no table is
      // read, though it costs about what a small query does (the authenticator reads it sparingly).
      dataVersion: async () => dataVersion.get()!,
      // Nothing tells one process of another's commit: runners on a shared data dir look every second.
      onNewWork: async () => undefined,
      onWorkDeleted: async (listener) => connection.onWorkDeleted(listener),
      signingSecret: async () => loadOrCreateSigningSecret(dataDir),
      ping: async () => void db.prepare('SELECT 1').get(),
    },
    holders: processHolders,
    resultCache: promised(resultCache),
    hostSlots: promised(new SqliteHostSlots(connection)),
    egressBenches: promised(new SqliteEgressBenches(connection)),
    webhooks: promised(webhooks),
    evidence: promised(new SqliteEvidence(connection)),
    evidenceReceivers: promised(new SqliteReceivers(connection)),
    deviceGrants: promised(new SqliteDeviceGrants(connection, tokens)),
    close: async () => {
      db.close();
    },
  };
}
