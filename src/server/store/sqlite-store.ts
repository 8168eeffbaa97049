import { DashboardRecords } from './sqlite/dashboard.js';
import { Connection, openDatabase, type SqliteStoreOptions } from './sqlite/database.js';
import { IdempotencyRecords } from './sqlite/idempotency.js';
import { JobRecords } from './sqlite/jobs.js';
import { LimitRecords } from './sqlite/limits.js';
import { processHolders } from './sqlite/holders.js';
import { HostSlotRecords } from './sqlite/host-slots.js';
import { EgressBenchRecords } from './sqlite/egress-benches.js';
import { promised } from './sqlite/promised.js';
import { ResultCacheRecords } from './sqlite/result-cache.js';
import { loadOrCreateSigningSecret } from './sqlite/signing-secret.js';
import { TokenRecords } from './sqlite/tokens.js';
import { UserRecords } from './sqlite/users.js';
import { WebhookRecords } from './sqlite/webhooks.js';
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
  const jobs = new JobRecords(connection, users, idempotency);
  const webhooks = new WebhookRecords(connection, jobs);
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  return {
    accounts: promised(users),
    tokens: promised(new TokenRecords(connection, users)),
    jobs: promised(jobs),
    work: promised(new WorkRecords(connection, users, webhooks)),
    idempotency: promised(idempotency),
    limits: promised(new LimitRecords(connection)),
    dashboard: promised(new DashboardRecords(connection)),
    install: {
      // SQLite's own counter of commits by other connections, other processes included; no table is
      // read, though it costs about what a small query does (the authenticator reads it sparingly).
      dataVersion: async () => dataVersion.get()!,
      // Nothing tells one process of another's commit: runners on a shared data dir look every second.
      onNewWork: async () => undefined,
      signingSecret: async () => loadOrCreateSigningSecret(dataDir),
      ping: async () => void db.prepare('SELECT 1').get(),
    },
    holders: processHolders,
    resultCache: promised(new ResultCacheRecords(connection)),
    hostSlots: promised(new HostSlotRecords(connection)),
    egressBenches: promised(new EgressBenchRecords(connection)),
    webhooks: promised(webhooks),
    close: async () => {
      db.close();
    },
  };
}
