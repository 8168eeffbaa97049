/**
 * The `format` check: RFC 5321 mailbox syntax (§4.1.2), with RFC 6531 UTF-8 in the local part and
 * IDN domains (converted to punycode for DNS). Deliberately stricter than RFC 5322: no comments,
 * no display names, no folding white space, no obsolete forms: what an MTA accepts in `RCPT TO`.
 */
import { isIPv4 } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { disallowedInLabel } from './idna2008.js';

export type FormatCheck =
  | {
      ok: true;
      /** The local part as given (case matters to the receiving server). */
      local: string;
      /** Lower-cased, as given otherwise (Unicode for an IDN, `[...]` for an address literal). */
      domain: string;
      /** The domain for DNS: punycode, lower case. */
      asciiDomain: string;
      /** The IP address of a `user@[ip]` literal, else null. */
      addressLiteral: string | null;
    }
  | { ok: false; reason: string };

const MAX_LOCAL_OCTETS = 64;
const MAX_ADDRESS_OCTETS = 254;
const MAX_LABEL_OCTETS = 63;

/** RFC 5322 atext, widened by RFC 6531 to every non-ASCII character. */
const ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\u{10FFFF}]+$/u;
/** Inside a quoted string: qtextSMTP (printable ASCII but `"` and `\`, plus space) or UTF-8. */
const QTEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e\u0080-\u{10FFFF}]$/u;
/** quoted-pairSMTP: a backslash before a printable ASCII character or space. */
const QUOTED_PAIR_TARGET = /^[\x20-\x7e]$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

const octets = (text: string): number => Buffer.byteLength(text, 'utf8');
const fail = (reason: string): FormatCheck => ({ ok: false, reason });

/** Index just past the closing quote of a quoted string starting at 0, or -1 if never closed. */
function endOfQuotedString(address: string): number {
  for (let i = 1; i < address.length; i++) {
    if (address[i] === '\\') i++;
    else if (address[i] === '"') return i + 1;
  }
  return -1;
}

/** The RFC 5322 features people paste in that RFC 5321 does not take, named so the reason helps. */
function unsupportedForm(unquoted: string): string | null {
  if (/[<>]/.test(unquoted)) return 'display names and angle brackets are not allowed';
  if (/[()]/.test(unquoted)) return 'comments are not allowed';
  if (/\s/u.test(unquoted)) return 'spaces are not allowed outside quotes';
  return null;
}

function checkQuotedLocal(local: string): string | null {
  const content = local.slice(1, -1);
  if (content.length === 0) return 'empty local part';
  for (let i = 0; i < content.length; i++) {
    const char = String.fromCodePoint(content.codePointAt(i)!);
    if (char.length === 2) i++; // astral code point: two UTF-16 units
    if (char === '\\') {
      if (!QUOTED_PAIR_TARGET.test(content[++i] ?? '')) return 'invalid escape in quoted local part';
    } else if (!QTEXT.test(char)) {
      return 'invalid character in quoted local part';
    }
  }
  return null;
}

function checkDotAtomLocal(local: string): string | null {
  if (local.length === 0) return 'empty local part';
  if (local.startsWith('.')) return 'local part starts with a dot';
  if (local.endsWith('.')) return 'local part ends with a dot';
  if (local.includes('..')) return 'consecutive dots in local part';
  if (local.includes('"')) return 'quotes must enclose the whole local part';
  return local.split('.').every((atom) => ATEXT.test(atom)) ? null : 'invalid character in local part';
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * RFC 5321 §4.1.3's IPv6-address-literal: eight groups, or six and an IPv4 address; "::" stands
 * for at least two groups of zeros (so at most six, or four before an IPv4 address, besides it).
 * Stricter than RFC 4291, which lets "::" replace one group; no zone id (it names an interface
 * of the sender's own host).
 */
function isRfc5321Ipv6(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const groups = halves.flatMap(groupsOf);
  const last = groups.at(-1) ?? '';
  const endsInIpv4 = last.includes('.');
  if (endsInIpv4 && !isIPv4(last)) return false;
  const hexGroups = endsInIpv4 ? groups.slice(0, -1) : groups;
  if (!hexGroups.every((group) => HEX_GROUP.test(group))) return false;
  const full = endsInIpv4 ? 6 : 8;
  return halves.length === 1 ? hexGroups.length === full : hexGroups.length <= full - 2;
}

/** `[192.0.2.1]` or `[IPv6:2001:db8::1]` → the IP, or a reason. */
function parseAddressLiteral(literal: string): { ip: string } | { reason: string } {
  const inner = literal.slice(1, -1);
  const ipv6 = /^ipv6:(.*)$/i.exec(inner)?.[1];
  if (ipv6 !== undefined) {
    return isRfc5321Ipv6(ipv6) ? { ip: ipv6.toLowerCase() } : { reason: 'invalid IPv6 address literal (RFC 5321 §4.1.3)' };
  }
  if (isIPv4(inner)) return { ip: inner };
  return { reason: 'invalid address literal (expected [IPv4] or [IPv6:...])' };
}

/** Dots as UTS #46 reads them: the ideographic and full-width full stops separate labels too. */
const LABEL_SEPARATORS = /[.\u3002\uff0e\uff61]/;

/** The first character of an internationalised domain that IDNA2008 disallows, in its Unicode or its ACE form. */
function idnaProblem(domain: string): string | null {
  for (const label of domain.split(LABEL_SEPARATORS)) {
    if (!/[\u0080-\u{10ffff}]/u.test(label) && !label.startsWith('xn--')) continue;
    const unicode = label.startsWith('xn--') ? domainToUnicode(label) : label;
    const disallowed = disallowedInLabel(unicode);
    if (disallowed !== null) return `character ${JSON.stringify(disallowed)} not allowed in a domain name (IDNA2008, RFC 5892)`;
  }
  return null;
}

/** Hostname rules on the punycode form: ≥ 2 labels, letters/digits/hyphens, ≤ 63 octets each. */
function checkHostname(rawDomain: string, asciiDomain: string): string | null {
  if (rawDomain.length === 0) return 'missing domain';
  if (rawDomain.startsWith('.') || rawDomain.endsWith('.')) return 'domain starts or ends with a dot';
  // Before the punycode result: WHATWG's domainToASCII refuses a numeric last label outright.
  if (/^\d+$/.test(rawDomain.split('.').at(-1)!)) return 'top-level domain is all digits (an IP address needs brackets)';
  if (asciiDomain === '') return 'invalid characters in domain';
  const idna = idnaProblem(rawDomain);
  if (idna) return idna;
  const labels = asciiDomain.split('.');
  if (labels.some((label) => label.length === 0)) return 'consecutive dots in domain';
  if (labels.length < 2) return 'domain needs at least two labels (missing top-level domain)';
  if (labels.some((label) => label.length > MAX_LABEL_OCTETS)) return `domain label longer than ${MAX_LABEL_OCTETS} octets`;
  // RFC 5890 §2.3.1: "--" in the third and fourth places marks a reserved label; only xn-- is in use.
  if (labels.some((label) => label.slice(2, 4) === '--' && !label.startsWith('xn--'))) return 'reserved domain label ("--" in the third and fourth places)';
  for (const label of labels) {
    if (!LDH_LABEL.test(label)) {
      return label.startsWith('-') || label.endsWith('-') ? 'domain label starts or ends with a hyphen' : 'invalid character in domain';
    }
  }
  return null;
}

/**
 * The shape nearly every real address has: ASCII dot-atoms, `@`, then letter-digit-hyphen labels
 * of ≤ 63 characters ending in one that starts with a letter (so it is neither an all-digit TLD
 * nor the `0x…` that WHATWG's IDNA reads as a number). One pass of a regex with no ambiguous
 * repetition (atoms and labels are split by dots that neither may hold).
 */
const PLAIN_ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * The fast path: proves a plain address valid without the full parser and the IDNA conversion,
 * which cost most of a bulk list's pre-check. Such a domain is its own punycode once lower-cased,
 * unless it holds `--` (an ACE label `xn--`, which must be decoded and may be invalid, or a reserved
 * one): left to the full path.
 * Undefined means "not proved here", never "invalid": everything unusual goes to the full parser.
 * Exported for the test that holds both paths to the same answers.
 */
export function checkPlainFormat(address: string): FormatCheck | undefined {
  // ASCII only past the regex, so characters are octets; the length test first bounds the regex's work.
  if (address.length > MAX_ADDRESS_OCTETS || !PLAIN_ADDRESS.test(address)) return undefined;
  const at = address.indexOf('@');
  if (at > MAX_LOCAL_OCTETS) return undefined;
  const domain = address.slice(at + 1).toLowerCase();
  if (domain.includes('--')) return undefined;
  return { ok: true, local: address.slice(0, at), domain, asciiDomain: domain, addressLiteral: null };
}

/** The full parser: every form the check knows, and the reason when an address fails. */
export function checkFormatFully(address: string): FormatCheck {
  const quotedEnd = address.startsWith('"') ? endOfQuotedString(address) : 0;
  if (quotedEnd < 0) return fail('unterminated quoted local part');
  const unsupported = unsupportedForm(address.slice(quotedEnd));
  if (unsupported) return fail(unsupported);

  const at = address.indexOf('@', quotedEnd);
  if (at < 0) return fail('missing @');
  const local = address.slice(0, at);
  const rawDomain = address.slice(at + 1);
  if (rawDomain.includes('@')) return fail('more than one @');

  const checkLocal = quotedEnd > 0 && at === quotedEnd ? checkQuotedLocal : checkDotAtomLocal;
  const localProblem = checkLocal(local);
  if (localProblem) return fail(localProblem);
  // RFC 6532 §3.1: UTF-8 addresses travel in NFC, so the normalised form must be valid and fit too.
  const normalized = local.normalize('NFC');
  const normalizedProblem = normalized === local ? null : checkLocal(normalized);
  if (normalizedProblem) return fail(`${normalizedProblem} (after Unicode normalization, NFC)`);
  const localOctets = Math.max(octets(local), octets(normalized));
  if (localOctets > MAX_LOCAL_OCTETS) return fail(`local part longer than ${MAX_LOCAL_OCTETS} octets`);

  const domain = rawDomain.toLowerCase();
  let asciiDomain: string;
  let addressLiteral: string | null = null;
  if (domain.startsWith('[')) {
    if (!domain.endsWith(']')) return fail('unclosed address literal');
    const literal = parseAddressLiteral(domain);
    if ('reason' in literal) return fail(literal.reason);
    asciiDomain = domain;
    addressLiteral = literal.ip;
  } else {
    asciiDomain = domainToASCII(domain);
    const domainProblem = checkHostname(domain, asciiDomain);
    if (domainProblem) return fail(domainProblem);
  }

  if (localOctets + 1 + octets(asciiDomain) > MAX_ADDRESS_OCTETS) return fail(`address longer than ${MAX_ADDRESS_OCTETS} octets`);
  return { ok: true, local, domain, asciiDomain, addressLiteral };
}

/** The `format` check: the fast path where it proves the address valid, else the full parser. */
export function checkFormat(address: string): FormatCheck {
  return checkPlainFormat(address) ?? checkFormatFully(address);
}

/**
 * The domain an address is grouped by wherever work is split by domain (the engine's bulk runs, the
 * store's chunks of a job): the ASCII form of a well-formed address's domain, the same the engine
 * asks DNS about; for anything else the text after the last `@`, lower-cased ('' when there is none).
 */
export function addressDomain(address: string): string {
  const email = address.trim();
  const format = checkFormat(email);
  if (format.ok && format.addressLiteral === null) return format.asciiDomain;
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
