/** Shared plumbing of the word lists: where the data files live, their format, loading once. */
import { readFileSync } from 'node:fs';
import { domainToASCII } from 'node:url';

/** The package's top-level data/: three levels up from src/engine/lists/ and dist/engine/lists/ alike. */
const DATA_DIR = new URL('../../../data/', import.meta.url);

export function readDataFile(name: string): string {
  return readFileSync(new URL(name, DATA_DIR), 'utf8');
}

/** A data/*.txt list: one entry per line, lower-cased; blank lines and `#` comments dropped. */
export function readWordList(name: string): string[] {
  return readDataFile(name)
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().toLowerCase())
    .filter((line) => line.length > 0);
}

/** Build a value on first use and keep it: a list loads once, and only if a check needs it. */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** ASCII (punycode) lower case without a trailing dot: the form every list entry is in. */
export function normaliseDomain(name: string): string {
  const bare = name.replace(/\.$/, '');
  return domainToASCII(bare) || bare.toLowerCase();
}

/**
 * A domain or host name and each parent with at least two labels, in ASCII lower case:
 * "mx1.Mail.Example.com." → ["mx1.mail.example.com", "mail.example.com", "example.com"].
 * A bare top-level domain is never a list entry, so it is never asked about.
 */
export function nameAndParents(name: string): string[] {
  const labels = normaliseDomain(name).split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}
