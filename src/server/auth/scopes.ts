import type { ApiScope } from '../../wire/contract.js';
import { ProblemError } from '../http/errors.js';
import type { Access } from './authenticate.js';

/**
 * Which scope each guarded route needs (docs/api.md "Token scopes"): one rule here rather than a
 * tag on every route, so that a route added later needs `account`, the widest, until said otherwise.
 * `GET /v1/account` needs none: every token may ask who it belongs to and what it may do.
 */
export function routeScope(method: string, url: string): ApiScope | null {
  if (url === '/v1/verify') return 'verify';
  if (url.startsWith('/v1/bulk-verify')) return method === 'GET' || method === 'HEAD' ? 'results' : 'bulk';
  if (url === '/v1/account' && (method === 'GET' || method === 'HEAD')) return null;
  if (url === '/v1/evidence' || url.startsWith('/v1/evidence/')) return 'evidence';
  return 'account';
}

/** The 403 for a token without the scope the route needs; a login JWT has every scope. */
export function checkScope(access: Access, needed: ApiScope | null): void {
  if (needed === null || access.scopes.includes(needed)) return;
  throw new ProblemError('insufficient_scope', `This token lacks the "${needed}" scope (it has: ${access.scopes.join(', ')}). Create a token with it.`, {
    scope: needed,
  });
}
