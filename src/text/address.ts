import { checkFormat } from '../engine/checks/format.js';

/** Only ASCII: such an address's domain, lower-cased, is its own A-label, and its local part has no other letters to fold. */
const ASCII_ONLY = /^[\p{ASCII}]*$/u;
const ASCII_CAPITALS = /[A-Z]+/g;

const foldAsciiLetters = (text: string): string => text.replace(ASCII_CAPITALS, (letters) => letters.toLowerCase());

/**
 * What makes two addresses the same, wherever lists are de-duplicated, results merged back or
 * verdicts reused (docs/architecture.md "Layers"): the address as the engine asks the mail host,
 * trimmed, with its ASCII letters folded and nothing else: the local part keeps every other
 * character as given (no Unicode case folding or normalisation: U+212A KELVIN SIGN is not `k` to a
 * mail server, and `toLowerCase()` would make it so), the domain is its lower-case A-label, as the
 * engine's format check converts it for DNS. What is not an address is trimmed and ASCII-folded.
 */
export function addressKey(address: string): string {
  const email = address.trim();
  if (ASCII_ONLY.test(email)) return email.toLowerCase();
  const format = checkFormat(email);
  if (!format.ok || format.addressLiteral !== null) return foldAsciiLetters(email);
  return `${foldAsciiLetters(format.local)}@${format.asciiDomain}`;
}
