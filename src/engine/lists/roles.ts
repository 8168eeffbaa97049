/** Role local parts (admin@, sales@, noreply@, ...) from data/role-local-parts.txt. */
import { once, readWordList } from './load.js';

const roleLocalParts = once(() => new Set(readWordList('role-local-parts.txt')));

/** Case-insensitive; a `+tag` (sales+eu@) and the quotes of a quoted local part are ignored. */
export function isRoleLocalPart(local: string): boolean {
  const unquoted = local.replace(/^"(.*)"$/s, '$1');
  const base = unquoted.split('+')[0]!.toLowerCase();
  return roleLocalParts().has(base);
}
