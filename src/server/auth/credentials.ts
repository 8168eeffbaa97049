import { randomBytes } from 'node:crypto';
import { ProblemError } from '../http/errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { Store, User } from '../store/store.js';
import { admitLoginAttempt } from './login-limit.js';

/** Checks an email and password, the one way in for the API's login and the dashboard's sign-in. */
export type CredentialCheck = (email: string, password: string, clientIp: string) => Promise<User>;

/**
 * Admits the attempt under the login limits (the 429 past them, a delay for an account under
 * attack; see login-limit.ts), then checks the password and reports how that went. An
 * unknown address is checked against a throwaway hash, so that the answer takes as long as for a
 * wrong password and does not tell which addresses have accounts; both are the same 401.
 */
export function createCredentialCheck(store: Pick<Store, 'accounts' | 'limits'>): CredentialCheck {
  let decoyHash: Promise<string> | undefined;
  const decoy = () => (decoyHash ??= hashPassword(randomBytes(16).toString('hex')));

  return async (rawEmail, password, clientIp) => {
    const email = rawEmail.trim();
    const attempt = await admitLoginAttempt(store.limits, email, clientIp);
    const user = await store.accounts.findUserByEmail(email);
    const valid = await verifyPassword(password, user?.passwordHash ?? (await decoy()));
    if (!user || user.passwordHash === null || !valid) {
      await attempt.failed();
      throw new ProblemError('unauthorized', 'Wrong email or password.');
    }
    await attempt.succeeded();
    return user;
  };
}
