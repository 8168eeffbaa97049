import { ExpiringCache } from '../expiring-cache.js';
import { ProblemError } from '../errors.js';
import type { Store, User } from '../store/store.js';
import { API_TOKEN_PREFIX, hashApiToken } from './api-tokens.js';
import type { JwtIssuer } from './jwt.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * How long this instance trusts what it read about a token's owner and a user's rate limit without
 * asking the store again. Changes made elsewhere show far sooner: the store's data version (see
 * Store.dataVersion) empties the caches within DATA_VERSION_CHECK_MS of any commit by another
 * instance or `mailverify admin`. This is the bound for a store whose version would miss a change.
 */
const IDENTITY_CACHE_TTL_MS = 2_000;
/** Tokens and users remembered at most (each entry is a few dozen bytes). */
const IDENTITY_CACHE_MAX_ENTRIES = 10_000;
/**
 * The store's data version is read at most once per this many milliseconds: reading it costs as
 * much as the rest of authentication, and under load a millisecond holds dozens of requests. So a
 * change committed elsewhere applies to every request that starts 1 ms or more after it.
 */
const DATA_VERSION_CHECK_MS = 1;

/**
 * Who an authenticated request is from: what routes and the rate limit need, and nothing that
 * changes with every request (the balance is read fresh where it is used).
 */
export type Caller = Pick<User, 'id' | 'rateLimit' | 'rateWindowSeconds'>;

export interface Authenticator {
  /** The caller an Authorization header stands for; throws the 401 otherwise. */
  authenticate(authorization: string | undefined): Promise<Caller>;
  /** Forgets a token this instance has just revoked, so that it is refused from the next request. */
  forgetToken(tokenId: string): void;
}

function invalidToken(): ProblemError {
  return new ProblemError('unauthorized', 'The token is not valid: unknown, revoked, expired or malformed.');
}

/**
 * Two kinds of bearer token (docs/api.md "Conventions"): `mv_` API tokens, looked up by their SHA-256,
 * and login JWTs. Reading the token and the user from the store on every request was most of the
 * cost of a cheap route, so both are cached in this process (unknown tokens never are).
 */
export function createAuthenticator(store: Store, jwt: JwtIssuer): Authenticator {
  const owners = new ExpiringCache<string, { userId: number; tokenId: string }>(IDENTITY_CACHE_TTL_MS, IDENTITY_CACHE_MAX_ENTRIES);
  const callers = new ExpiringCache<number, Caller>(IDENTITY_CACHE_TTL_MS, IDENTITY_CACHE_MAX_ENTRIES);
  /** Undefined until the first check, which only takes note of where the store stands. */
  let seenVersion: number | undefined;
  let versionCheckedAt = -Infinity;

  async function forgetWhatOthersChanged(): Promise<void> {
    const now = performance.now();
    if (now - versionCheckedAt < DATA_VERSION_CHECK_MS) return;
    versionCheckedAt = now;
    const version = await store.install.dataVersion();
    if (version === seenVersion) return;
    seenVersion = version;
    owners.clear();
    callers.clear();
  }

  async function ownerOfApiToken(token: string): Promise<number | undefined> {
    const hash = hashApiToken(token);
    let owner = owners.get(hash);
    if (owner === undefined) {
      const record = await store.tokens.findApiTokenByHash(hash);
      if (record === undefined) return undefined;
      owner = { userId: record.userId, tokenId: record.id };
      owners.set(hash, owner);
    }
    return owner.userId;
  }

  async function callerOf(userId: number): Promise<Caller | undefined> {
    let caller = callers.get(userId);
    if (caller === undefined) {
      const user = await store.accounts.findUserById(userId);
      if (user === undefined) return undefined;
      caller = { id: user.id, rateLimit: user.rateLimit, rateWindowSeconds: user.rateWindowSeconds };
      callers.set(userId, caller);
    }
    return caller;
  }

  return {
    async authenticate(authorization) {
      if (authorization === undefined || authorization === '') {
        throw new ProblemError('unauthorized', 'Send Authorization: Bearer <token> (a JWT from /v1/auth/login or an mv_ API token).');
      }
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined) throw invalidToken();
      await forgetWhatOthersChanged();
      const userId = token.startsWith(API_TOKEN_PREFIX) ? await ownerOfApiToken(token) : await jwt.verify(token);
      const caller = userId === undefined ? undefined : await callerOf(userId);
      if (caller === undefined) throw invalidToken();
      return caller;
    },
    forgetToken(tokenId) {
      owners.deleteWhere((owner) => owner.tokenId === tokenId);
    },
  };
}
