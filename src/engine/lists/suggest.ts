/**
 * "Did you mean gmail.com?": the known provider domain a mistyped domain was most likely meant
 * to be. Our own small Damerau–Levenshtein (optimal string alignment) over the provider list of
 * data/providers.json: the list has some 60 names and the domains are short, so a package would
 * add a dependency for twenty lines; and the rules around the distance, not the distance itself,
 * are what keep real domains (gmx.com, email.com, hotmail.es, love.com) from getting suggestions.
 *
 * The engine asks only about domains that do not exist or take no mail, so a real domain near a
 * big one is never "corrected" at run time; the rules below also hold for the name alone.
 */
import { knownProviderDomains } from './providers.js';
import { once } from './load.js';

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** A domain as the name a user types (`hotmail`) and its suffix (`com`, `co.uk`). */
interface Split {
  name: string;
  suffix: string;
}

/** `co.uk`, `com.br`: a short second-level label under a country code belongs to the suffix. */
function split(domain: string): Split {
  const labels = domain.split('.');
  const country = labels.length >= 3 && labels.at(-1)!.length === 2 && labels.at(-2)!.length <= 3;
  const suffixLabels = country ? 2 : 1;
  return { name: labels.slice(0, -suffixLabels).join('.'), suffix: labels.slice(-suffixLabels).join('.') };
}

/**
 * Edits allowed in the name part. Short provider names have real neighbours one edit away (aol
 * and aon.com, live and love.com, mail and gmail.com): no edits at all below five letters.
 */
function nameEditsAllowed(providerName: string): number {
  if (providerName.length >= 8) return 2;
  return providerName.length >= 5 ? 1 : 0;
}

/**
 * The edits of a suffix typo, or null when `typed` is another real suffix. Only a suffix of three
 * letters or more is mistyped into one edit away (com → co, cm, con, comm; net → ne): edits
 * between two-letter country codes (de → dk, es → ee) name other real countries, and hotmail.es
 * is Microsoft's as much as hotmail.de.
 */
function suffixEdits(typed: string, provider: string): number | null {
  if (typed === provider) return 0;
  if (provider.length < 3 || typed.includes('.') !== provider.includes('.')) return null;
  return editDistance(typed, provider) === 1 ? 1 : null;
}

/** How many edits separate `typed` from `provider` under the rules above, or null when too far. */
function distance(typed: Split, provider: Split): number | null {
  const suffix = suffixEdits(typed.suffix, provider.suffix);
  if (suffix === null) return null;
  if (typed.name === provider.name) return suffix;
  // A different first letter is rarely a slip (email.com, cloud.com, wahoo.com are real domains).
  if (typed.name[0] !== provider.name[0]) return null;
  const name = editDistance(typed.name, provider.name);
  // One slip in each part at most together, two in a long name: further off is another name.
  return name <= nameEditsAllowed(provider.name) && name + suffix <= 2 ? name + suffix : null;
}

const providers = once(() => knownProviderDomains().map((domain) => ({ domain, split: split(domain) })));

/**
 * The provider domain `asciiDomain` is a likely typo of, or null. The closest wins; between equally
 * close ones, the provider listed first (the bigger).
 */
export function suggestDomain(asciiDomain: string): string | null {
  const domain = asciiDomain.toLowerCase().replace(/\.$/, '');
  const typed = split(domain);
  let best: { domain: string; edits: number } | null = null;
  for (const provider of providers()) {
    if (provider.domain === domain) return null;
    const edits = distance(typed, provider.split);
    if (edits !== null && edits > 0 && (best === null || edits < best.edits)) best = { domain: provider.domain, edits };
  }
  return best?.domain ?? null;
}
