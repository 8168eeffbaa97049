import { API_SCOPES, MAX_TOKEN_LIFETIME_SECONDS, type ApiScope } from '../../wire/contract.js';
import { ProblemError } from '../http/errors.js';
import type { TokenGrant } from '../store/store.js';

/** What a new token is asked to be allowed (the API's body, the dashboard's form alike). */
export interface GrantRequest {
  scopes?: readonly string[];
  expiresAt?: string;
  expiresIn?: number;
  /** A test token (docs/api.md "Sandbox"). */
  test?: boolean;
}

/**
 * The grant a create-token request asks for (docs/api.md "Token scopes"): every scope unless told,
 * never expiring unless `expiresAt` (a time to come) or `expiresIn` (seconds from now) says when.
 * Anything else is the client's mistake: a 400 that says which.
 */
export function grantFrom(request: GrantRequest, now = Date.now()): TokenGrant {
  const scopes = request.scopes ?? API_SCOPES;
  if (scopes.length === 0) throw new ProblemError('invalid_request', `Give at least one scope: ${API_SCOPES.join(', ')}.`);
  const unknown = scopes.find((scope) => !(API_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined) throw new ProblemError('invalid_request', `Unknown scope "${unknown}": the scopes are ${API_SCOPES.join(', ')}.`);
  return { scopes: API_SCOPES.filter((scope: ApiScope) => scopes.includes(scope)), expiresAt: expiryFrom(request, now), test: request.test ?? false };
}

/**
 * The grant of a token made with an API token (docs/api.md "Token scopes"): never more than the
 * creator's, so that no token grows into a wider or longer-lived one. As for any new token, left-out
 * scopes mean every scope and a left-out expiry never; asked of a scoped or expiring token, that is
 * beyond its grant too: a 403 naming each excess, so that the client asks again within it.
 */
export function grantWithin(request: GrantRequest, creator: TokenGrant, now = Date.now()): TokenGrant {
  const grant = grantFrom(request, now);
  const scopes = grant.scopes.filter((scope) => !creator.scopes.includes(scope));
  const outlives = creator.expiresAt !== null && (grant.expiresAt === null || Date.parse(grant.expiresAt) > Date.parse(creator.expiresAt));
  // A test token spends nothing: a live token made with it would.
  const live = creator.test && !grant.test;
  if (scopes.length === 0 && !outlives && !live) return grant;
  const excesses = [
    ...(scopes.length > 0 ? [`the scope${scopes.length === 1 ? '' : 's'} ${scopes.join(', ')} (it has: ${creator.scopes.join(', ')})`] : []),
    ...(outlives ? [`${grant.expiresAt === null ? 'no expiry' : `an expiry of ${grant.expiresAt}`} (it expires at ${creator.expiresAt})`] : []),
    ...(live ? ['a live token (it is a test token: add "test": true)'] : []),
  ];
  throw new ProblemError('beyond_token_grant', `A token may only make tokens within its own grant; this asks for ${excesses.join(' and ')}.`, {
    beyondGrant: [...scopes, ...(outlives ? ['expiry'] : []), ...(live ? ['live'] : [])],
  });
}

function expiryFrom({ expiresAt, expiresIn }: GrantRequest, now: number): string | null {
  if (expiresAt !== undefined && expiresIn !== undefined) throw new ProblemError('invalid_request', 'Give expiresAt or expiresIn, not both.');
  if (expiresIn !== undefined) {
    if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_TOKEN_LIFETIME_SECONDS) {
      throw new ProblemError('invalid_request', `expiresIn is whole seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}.`);
    }
    return new Date(now + expiresIn * 1_000).toISOString();
  }
  if (expiresAt === undefined) return null;
  // An ISO 8601 time with a date, a time and a zone (RFC 3339), nothing Date.parse would guess at.
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(expiresAt) ? Date.parse(expiresAt) : NaN;
  if (Number.isNaN(at)) throw new ProblemError('invalid_request', `expiresAt "${expiresAt}" is not a time such as 2030-01-31T00:00:00Z.`);
  if (at <= now) throw new ProblemError('invalid_request', `expiresAt ${expiresAt} has passed: give a time to come.`);
  if (at > now + MAX_TOKEN_LIFETIME_SECONDS * 1_000) throw new ProblemError('invalid_request', 'expiresAt is more than ten years away.');
  return new Date(at).toISOString();
}
