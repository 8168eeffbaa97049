import { ExpiringCache } from './expiring-cache.js';
import { ProblemError } from '../http/errors.js';
import { FULL_GRANT, type Store, type TokenGrant, type User } from '../store/store.js';
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

/** The token a request came with and what it may do (docs/api.md "Token scopes"). */
export interface Access extends TokenGrant {
  kind: 'api' | 'login';
  /** The API token's id and name; null for a login JWT. */
  tokenId: string | null;
  name: string | null;
}

/** A login JWT may do everything; it expires by its own `exp`, checked where it is verified. */
const LOGIN_ACCESS: Access = { kind: 'login', tokenId: null, name: null, ...FULL_GRANT };

/** Whose a token is: an API token's owner, or the user a login JWT names with the session epoch it was issued in. */
interface Owner {
  userId: number;
  sessionEpoch?: string;
  access: Access;
}

/** A caller as cached, with the session epoch its login JWTs must name. */
interface KnownCaller {
  caller: Caller;
  sessionEpoch: string;
}

export interface Authenticated {
  caller: Caller;
  access: Access;
}

export interface Authenticator {
  /** The caller an Authorization header stands for and the token's access; throws the 401 otherwise. */
  authenticate(authorization: string | undefined): Promise<Authenticated>;
  /** Forgets a token this instance has just revoked, so that it is refused from the next request. */
  forgetToken(tokenId: string): void;
}

function invalidToken(): ProblemError {
  return new ProblemError('unauthorized', 'The token is not valid: unknown, revoked, expired or malformed.');
}

/** An API token past its expiry: said as such, so that its owner knows to make a new one rather than look for a typo. */
function expiredToken(expiresAt: string): ProblemError {
  return new ProblemError('unauthorized', `The token expired at ${expiresAt}: create a new one (POST /v1/tokens, or mailverify tokens create).`);
}

/**
 * Two kinds of bearer token (docs/api.md "Conventions"): `mv_` API tokens, looked up by their SHA-256,
 * and login JWTs. Reading the token and the user from the store on every request was most of the
 * cost of a cheap route, so both are cached in this process (unknown tokens never are).
 */
export function createAuthenticator(store: Store, jwt: JwtIssuer): Authenticator {
  const owners = new ExpiringCache<string, Owner>(IDENTITY_CACHE_TTL_MS, IDENTITY_CACHE_MAX_ENTRIES);
  const callers = new ExpiringCache<number, KnownCaller>(IDENTITY_CACHE_TTL_MS, IDENTITY_CACHE_MAX_ENTRIES);
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

  async function ownerOfApiToken(token: string): Promise<Owner | undefined> {
    const hash = hashApiToken(token);
    let owner = owners.get(hash);
    if (owner === undefined) {
      const record = await store.tokens.findApiTokenByHash(hash);
      if (record === undefined) return undefined;
      const { id, name, scopes, expiresAt, test } = record;
      owner = { userId: record.userId, access: { kind: 'api', tokenId: id, name, scopes, expiresAt, test } };
      owners.set(hash, owner);
    }
    // Checked on every request, cached or not: a token stops at its expiry, to the millisecond.
    const { expiresAt } = owner.access;
    if (expiresAt !== null && Date.parse(expiresAt) <= Date.now()) throw expiredToken(expiresAt);
    return owner;
  }

  async function callerOf({ userId, sessionEpoch }: Owner): Promise<Caller | undefined> {
    let known = callers.get(userId);
    if (known === undefined) {
      const user = await store.accounts.findUserById(userId);
      if (user === undefined) return undefined;
      known = { caller: { id: user.id, rateLimit: user.rateLimit, rateWindowSeconds: user.rateWindowSeconds }, sessionEpoch: user.sessionEpoch };
      callers.set(userId, known);
    }
    // A login JWT from before the user's last password change, or of a deleted user whose id came back, is no one's.
    if (sessionEpoch !== undefined && sessionEpoch !== known.sessionEpoch) return undefined;
    return known.caller;
  }

  async function loginOwner(token: string): Promise<Owner | undefined> {
    const subject = await jwt.verify(token);
    return subject === undefined ? undefined : { ...subject, access: LOGIN_ACCESS };
  }

  return {
    async authenticate(authorization) {
      if (authorization === undefined || authorization === '') {
        throw new ProblemError('unauthorized', 'Send Authorization: Bearer <token> (a JWT from /v1/auth/login or an mv_ API token).');
      }
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined) throw invalidToken();
      await forgetWhatOthersChanged();
      const owner = token.startsWith(API_TOKEN_PREFIX) ? await ownerOfApiToken(token) : await loginOwner(token);
      const caller = owner === undefined ? undefined : await callerOf(owner);
      if (caller === undefined || owner === undefined) throw invalidToken();
      return { caller, access: owner.access };
    },
    forgetToken(tokenId) {
      owners.deleteWhere((owner) => owner.access.tokenId === tokenId);
    },
  };
}
