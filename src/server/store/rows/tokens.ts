import { API_SCOPES } from '../../../wire/contract.js';
import type { ApiToken, TokenGrant } from '../model.js';

/** An API token as both schemas hold it, its mapping to the Store's record, and how its scopes and last use are stored. */

export interface TokenRow {
  id: string;
  user_id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  /** The token's scopes, space-separated (docs/api.md "Token scopes"). */
  scopes: string;
  expires_at: string | null;
  /** A test token (TokenGrant.test); SQLite says 0 or 1. */
  test: boolean | number;
}

export const toToken = (row: TokenRow): ApiToken => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  scopes: API_SCOPES.filter((scope) => row.scopes.split(' ').includes(scope)),
  expiresAt: row.expires_at,
  test: Boolean(row.test),
});

/** A grant's scopes as the `scopes` column holds them. */
export const scopesColumn = (grant: TokenGrant): string => API_SCOPES.filter((scope) => grant.scopes.includes(scope)).join(' ');

/** A token's "last used" time is rewritten at most this often, so authenticating is not a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** True when a token's stored "last used" time is due to be rewritten at `now`. */
export function lastUseIsStale(lastUsedAt: string | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - Date.parse(lastUsedAt) >= LAST_USED_RESOLUTION_MS;
}
