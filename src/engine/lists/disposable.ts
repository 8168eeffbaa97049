/**
 * Disposable (throw-away) mailbox domains: the maintained `disposable-email-domains` npm list (its
 * exact and wildcard entries) plus our own additions in data/disposable-extra.txt. Subdomains of a
 * listed domain count as disposable too. Refresh the npm list with `npm run lists:update`.
 */
import { createRequire } from 'node:module';
import { nameAndParents, once, readWordList } from './load.js';

const require = createRequire(import.meta.url);

const disposableDomains = once(
  () =>
    new Set<string>([
      ...(require('disposable-email-domains') as string[]),
      ...(require('disposable-email-domains/wildcard.json') as string[]),
      ...readWordList('disposable-extra.txt'),
    ]),
);

export function isDisposableDomain(domain: string): boolean {
  const listed = disposableDomains();
  return nameAndParents(domain).some((name) => listed.has(name));
}
