import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { usingEvidence, type ServiceVerifier } from '../../server/local-run.js';
import { DATABASE_FILE, StoreError, type Store, type User } from '../../server/store/open/open-store.js';

/**
 * The account the local data dir's work and evidence belong to (`bulk submit --local`, `verify
 * --local`, `evidence import --local`): credited with exactly what each local job costs, so its
 * ledger adds up.
 */
export const LOCAL_ACCOUNT = 'local-cli@mailverify.invalid';

/** The local account, made on first use (by whichever of two runs at once gets there first). */
export async function localAccount(store: Store): Promise<User> {
  const found = await store.accounts.findUserByEmail(LOCAL_ACCOUNT);
  if (found) return found;
  try {
    return await store.accounts.createUser({ email: LOCAL_ACCOUNT, passwordHash: null, balance: 0, rateLimit: 1, rateWindowSeconds: 1 });
  } catch (error) {
    if (!(error instanceof StoreError && error.code === 'user_exists')) throw error;
    return (await store.accounts.findUserByEmail(LOCAL_ACCOUNT))!;
  }
}

/** Whether the local data dir holds a store yet (nothing was ever cleaned or imported there when not). */
export const hasLocalStore = (dataDir: string): boolean => existsSync(join(dataDir, DATABASE_FILE));

/**
 * The verifier with the local account's evidence after it (docs/evidence.md "How evidence decides a
 * verdict"), as the service does for its accounts; a window of 0 uses none. Each call must name the
 * local account as its `owner`.
 */
export function withLocalEvidence<V extends ServiceVerifier>(verifier: V, store: Store, windowMs: number, warn: (message: string) => void): V {
  if (windowMs <= 0) return verifier;
  return usingEvidence(verifier, store.evidence, windowMs, () => warn('the evidence in the local data dir could not be read; answering with the probe alone'));
}
