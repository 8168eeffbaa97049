import { checkFormat } from './format.js';

/** Only ASCII: such an address's domain, lower-cased, is its own A-label, and its local part has no other letters to fold. */
const ASCII_ONLY = /^[\p{ASCII}]*$/u;
const ASCII_CAPITALS = /[A-Z]+/g;

const foldAsciiLetters = (text: string): string => text.replace(ASCII_CAPITALS, (letters) => letters.toLowerCase());

/**
 * The trimmed address with its domain as the engine asks DNS for it (the lower-case A-label, as the
 * engine's format check converts it) and its local part as `local` makes it. What is not an address,
 * or is an address literal, is trimmed and given to `local` whole.
 */
function withAsciiDomain(address: string, local: (given: string) => string): string {
  const email = address.trim();
  if (ASCII_ONLY.test(email)) {
    // No domain holds an `@`: the last one ends the local part, quoted or not.
    const at = email.lastIndexOf('@');
    return at < 0 ? local(email) : `${local(email.slice(0, at))}${email.slice(at).toLowerCase()}`;
  }
  const format = checkFormat(email);
  if (!format.ok || format.addressLiteral !== null) return local(email);
  return `${local(format.local)}@${format.asciiDomain}`;
}

/**
 * What makes two addresses the same, wherever lists are de-duplicated, results merged back or
 * verdicts reused where the provider folds case (docs/architecture.md "Layers"): the address as the
 * engine asks the mail host, trimmed, with its ASCII letters folded and nothing else: the local part
 * keeps every other character as given (no Unicode case folding or normalisation: U+212A KELVIN SIGN
 * is not `k` to a mail server, and `toLowerCase()` would make it so), the domain is its lower-case
 * A-label, as the engine's format check converts it for DNS. What is not an address is trimmed and ASCII-folded.
 */
export function addressKey(address: string): string {
  return withAsciiDomain(address, foldAsciiLetters);
}

/**
 * The address exactly as the engine asks the mail host: trimmed, the local part as given, case
 * included (a server may tell `Ann@` from `ann@`, RFC 5321 §2.4), the domain its lower-case A-label.
 * What a verdict is reused under where the provider is not known to fold case (docs/architecture.md
 * "The result cache and refunds").
 */
export function exactAddressKey(address: string): string {
  return withAsciiDomain(address, (given) => given);
}
