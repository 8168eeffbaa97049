import type { User, Store } from '../store/store.js';
import { ProblemError } from '../errors.js';
import { API_TOKEN_PREFIX, hashApiToken } from './api-tokens.js';
import type { JwtIssuer } from './jwt.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Resolves an Authorization header to its user, or throws a 401. */
export type Authenticator = (authorization: string | undefined) => Promise<User>;

/**
 * Two kinds of bearer token (service-interface §5): `mv_` API tokens, looked up by their SHA-256
 * (so a revoked one is gone at once), and login JWTs. The user is read fresh on every request so
 * balance and rate limit are current.
 */
export function createAuthenticator(store: Store, jwt: JwtIssuer): Authenticator {
  async function userIdOf(token: string): Promise<number | undefined> {
    if (token.startsWith(API_TOKEN_PREFIX)) return store.findApiTokenByHash(hashApiToken(token))?.userId;
    return jwt.verify(token);
  }
  return async (authorization) => {
    if (authorization === undefined || authorization === '') {
      throw new ProblemError('unauthorized', 'Send Authorization: Bearer <token> (a JWT from /v1/auth/login or an mv_ API token).');
    }
    const token = BEARER.exec(authorization)?.[1];
    const userId = token === undefined ? undefined : await userIdOf(token);
    const user = userId === undefined ? undefined : store.findUserById(userId);
    if (!user) throw new ProblemError('unauthorized', 'The token is not valid: unknown, revoked, expired or malformed.');
    return user;
  };
}
