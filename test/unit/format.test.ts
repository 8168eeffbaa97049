import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkFormat, checkFormatFully, checkPlainFormat } from '../../src/engine/checks/format.js';

interface SuiteCase {
  address: string;
  /** The public suite and test it comes from. */
  source: string;
  /** What that suite expects. */
  suite: 'valid' | 'invalid';
  /** What we expect: the suite's answer, or ours with `why` (each edge with its RFC reference). */
  expected: 'valid' | 'invalid';
  why?: string;
}
/** Cases from isemail's tests.xml, python email-validator's and validator.js's tests, and RFC 3696 with its erratum. */
const SUITES = JSON.parse(readFileSync(new URL('../support/corpora/syntax-cases.json', import.meta.url), 'utf8')) as SuiteCase[];

const label63 = 'a'.repeat(63);
const label64 = 'a'.repeat(64);
const local64 = 'l'.repeat(64);
const local65 = 'l'.repeat(65);
/** A domain of `length` characters made of 63-character labels and a short tail. */
function domainOfLength(length: number): string {
  const labels: string[] = [];
  let remaining = length - 4; // room for ".com"
  while (remaining > 0) {
    const size = Math.min(63, remaining);
    labels.push('d'.repeat(size));
    remaining -= size + 1;
  }
  return `${labels.join('.')}.com`.slice(-length);
}
const domain241 = domainOfLength(241);

/** [address, why this row is here] */
const VALID: [string, string][] = [
  ['simple@example.com', 'plain dot-atom'],
  ['very.common@example.com', 'dots between atoms'],
  ['disposable.style.email.with+symbol@example.com', 'plus tag'],
  ['other.email-with-hyphen@example.com', 'hyphen in local part'],
  ['fully-qualified-domain@example.com', 'hyphen in local part'],
  ['user.name+tag+sorting@example.com', 'several plus signs'],
  ['x@example.com', 'one-letter local part'],
  ['example-indeed@strange-example.com', 'hyphen in domain'],
  ['admin@mailserver1.example.org', 'digit in label'],
  ['example@s.example', 'one-letter label'],
  ["!#$%&'*+-/=?^_`{|}~@example.org", 'every atext special character'],
  ['user%example.com@example.org', 'percent (old source routing) is atext'],
  ['user-@example.org', 'local part ending in a hyphen'],
  ['"john doe"@example.com', 'quoted local part with a space'],
  ['"john..doe"@example.com', 'consecutive dots are fine inside quotes'],
  ['".john"@example.com', 'leading dot inside quotes'],
  ['"a@b"@example.com', '@ inside quotes'],
  ['"quote\\"inside"@example.com', 'escaped quote in quoted local part'],
  ['"back\\\\slash"@example.com', 'escaped backslash in quoted local part'],
  ['"(comment-like)"@example.com', 'parentheses inside quotes are text'],
  ['"<angle>"@example.com', 'angle brackets inside quotes are text'],
  ['user@EXAMPLE.COM', 'upper-case domain'],
  ['User.Name@Example.Com', 'mixed case'],
  ['user@bücher.de', 'IDN domain'],
  ['user@xn--bcher-kva.de', 'IDN domain already in punycode'],
  ['user@例え.テスト', 'IDN domain with a Unicode TLD'],
  ['用户@例子.广告', 'UTF-8 local part (RFC 6531)'],
  ['josé@example.com', 'accented local part (RFC 6531)'],
  ['user@sub.domain.example.co.uk', 'many labels'],
  ['user@123.example.com', 'all-digit label that is not the TLD'],
  ['user@example.xn--p1ai', 'punycode TLD'],
  [`${local64}@example.com`, 'local part of exactly 64 octets'],
  [`user@${label63}.com`, 'label of exactly 63 octets'],
  [`${'l'.repeat(12)}@${domain241}`, 'address of exactly 254 octets'],
  ['user@[192.0.2.1]', 'IPv4 address literal'],
  ['user@[IPv6:2001:db8::1]', 'IPv6 address literal'],
  ['user@[ipv6:::1]', 'IPv6 tag is case-insensitive'],
  ['user@[IPv6:2001:db8:1:2:3::5]', '"::" standing for two groups (RFC 5321 §4.1.3)'],
  ['user@[IPv6:2001:db8:1:2::192.0.2.1]', 'IPv6 with an IPv4 tail, "::" for two groups'],
  ['user@faß.de', 'ß is PVALID in IDNA2008 (RFC 5892 §2.6)'],
  ['user@l·l.cat', 'MIDDLE DOT between two l (RFC 5892 Appendix A.3)'],
];

/** [address, the reason it must give, why this row is here] */
const INVALID: [string, RegExp, string][] = [
  ['', /missing @/, 'empty string'],
  ['plainaddress', /missing @/, 'no @'],
  ['@example.com', /empty local part/, 'no local part'],
  ['user@', /missing domain/, 'no domain'],
  ['a@b@example.com', /more than one @/, 'two @'],
  ['.user@example.com', /starts with a dot/, 'leading dot'],
  ['user.@example.com', /ends with a dot/, 'trailing dot'],
  ['us..er@example.com', /consecutive dots in local part/, 'consecutive dots'],
  ['user@example..com', /consecutive dots in domain/, 'empty label'],
  ['user@.example.com', /domain starts or ends with a dot/, 'leading dot in domain'],
  ['user@example.com.', /domain starts or ends with a dot/, 'trailing dot in domain'],
  ['user@localhost', /at least two labels/, 'missing TLD label'],
  ['user@com', /at least two labels/, 'single label'],
  ['user name@example.com', /spaces/, 'space in local part'],
  ['user@exa mple.com', /spaces/, 'space in domain'],
  [' user@example.com', /spaces/, 'leading space'],
  ['user@example.com ', /spaces/, 'trailing space'],
  ['user\t@example.com', /spaces/, 'tab'],
  ['user(comment)@example.com', /comments/, 'comment in local part'],
  ['user@example.com(comment)', /comments/, 'comment after domain'],
  ['John Doe <john@example.com>', /display names/, 'display name'],
  ['<john@example.com>', /angle brackets/, 'bare angle brackets'],
  ['"John" <john@example.com>', /display names/, 'quoted display name'],
  ['"unterminated@example.com', /unterminated/, 'unterminated quote'],
  ['a"b"@example.com', /quotes must enclose/, 'quotes in the middle of a dot-atom'],
  ['"a"b@example.com', /quotes must enclose/, 'text after the quoted string'],
  ['"a"."b"@example.com', /quotes must enclose/, 'obsolete quoted-string atoms (obs-local-part)'],
  ['""@example.com', /empty local part/, 'empty quoted string'],
  ['"bad\\\u0001"@example.com', /invalid escape/, 'escaped control character'],
  ['"tab\there"@example.com', /invalid character in quoted/, 'raw tab in quotes'],
  ['back\\slash@example.com', /invalid character in local part/, 'backslash outside quotes'],
  ['comma,user@example.com', /invalid character in local part/, 'comma'],
  ['semi;colon@example.com', /invalid character in local part/, 'semicolon'],
  ['bracket[1]@example.com', /invalid character in local part/, 'square brackets in local part'],
  [`${local65}@example.com`, /local part longer than 64/, '65-octet local part'],
  [`${'é'.repeat(33)}@example.com`, /local part longer than 64/, '33 two-octet characters = 66 octets'],
  [`user@${label64}.com`, /label longer than 63/, '64-octet label'],
  [`${'l'.repeat(13)}@${domain241}`, /address longer than 254/, '255-octet address'],
  ['user@-example.com', /hyphen/, 'label starting with a hyphen'],
  ['user@example-.com', /hyphen/, 'label ending with a hyphen'],
  ['user@exam_ple.com', /invalid character in domain/, 'underscore in domain'],
  ['user@example.c*m', /invalid character/, 'asterisk in TLD'],
  ['user@xn--zz.com', /invalid characters in domain/, 'broken punycode'],
  ['user@example.123', /all digits/, 'numeric TLD'],
  ['user@192.0.2.1', /all digits/, 'IP address without brackets'],
  ['user@[192.0.2.256]', /address literal/, 'IPv4 literal out of range'],
  ['user@[01.2.3.4]', /address literal/, 'IPv4 literal with a leading zero'],
  ['user@[2001:db8::1]', /address literal/, 'IPv6 literal without its tag'],
  ['user@[IPv6:2001:db8::g]', /invalid IPv6/, 'bad IPv6 literal'],
  ['user@[IPv6:fe80::1%eth0]', /invalid IPv6/, 'IPv6 zone id'],
  ['user@[IPv6:2001:db8:1:2:3:4::5]', /invalid IPv6/, '"::" standing for a single group (RFC 5321 §4.1.3)'],
  ['user@©.com', /IDNA2008/, 'a symbol IDNA2008 disallows (RFC 5892)'],
  ['user@xn--gba.com', /IDNA2008/, 'the same symbol in its ACE form'],
  ['user@😀.example', /IDNA2008/, 'an emoji label (UTS #46 takes it, IDNA2008 does not)'],
  ['user@ab--cd.example', /reserved domain label/, 'a reserved LDH label (RFC 5890 §2.3.1)'],
  ['user@[x400:whatever]', /address literal/, 'general address literal with an unknown tag'],
  ['user@[192.0.2.1', /unclosed address literal/, 'unclosed address literal'],
];

describe('checkFormat', () => {
  it('has a table of at least 60 addresses', () => {
    expect(VALID.length + INVALID.length).toBeGreaterThanOrEqual(60);
  });

  it.each(VALID)('accepts %s (%s)', (address) => {
    const result = checkFormat(address);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
  });

  it.each(INVALID)('rejects %j: %s (%s)', (address, reason) => {
    const result = checkFormat(address);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });

  it('keeps the local part as given and lower-cases the domain', () => {
    expect(checkFormat('John.Doe@Example.COM')).toEqual({
      ok: true,
      local: 'John.Doe',
      domain: 'example.com',
      asciiDomain: 'example.com',
      addressLiteral: null,
    });
  });

  it('converts an IDN domain to punycode for DNS', () => {
    expect(checkFormat('info@Bücher.DE')).toMatchObject({ domain: 'bücher.de', asciiDomain: 'xn--bcher-kva.de' });
    expect(checkFormat('info@例え.テスト')).toMatchObject({ asciiDomain: 'xn--r8jz45g.xn--zckzah' });
  });

  it('returns the IP of an address literal', () => {
    expect(checkFormat('user@[192.0.2.1]')).toMatchObject({ domain: '[192.0.2.1]', addressLiteral: '192.0.2.1' });
    expect(checkFormat('user@[IPv6:2001:DB8::1]')).toMatchObject({ addressLiteral: '2001:db8::1' });
  });

  it('measures the 254-octet limit on the punycode address, not the Unicode one', () => {
    const umlauts = 'ü'.repeat(55); // 110 octets in UTF-8, 61 in punycode
    const longInUtf8 = `user@${umlauts}.${umlauts}.${domainOfLength(100)}`; // 327 octets, 229 in punycode
    expect(checkFormat(longInUtf8).ok).toBe(true);
    const cjk = '例子广告测试'.repeat(4).slice(0, 20); // 20 characters, 48 in punycode
    const longInPunycode = `user@${[cjk, cjk, cjk, cjk].join('.')}.${domainOfLength(60)}`; // 149 characters, 261 in punycode
    expect(checkFormat(longInPunycode)).toEqual({ ok: false, reason: 'address longer than 254 octets' });
  });
});

/**
 * Near misses of the fast path's shape, to hold it to the full parser where they part: each plain
 * address with one character inserted, replaced or removed at every position, and the domain and
 * length edges (punycode, numeric and `0x` TLDs, 63/64-octet labels, 64/65-octet local parts,
 * 254/255-octet addresses).
 */
function nearMisses(): string[] {
  const bases = ['simple@example.com', "o'neil_99+x@mail-2.example.co.uk", 'x@y.io'];
  const characters = [...'.@-_+%!~`{|}=?^#$&*/\'"\\ \t\n\r()<>[],;:0aZ', 'é', 'ü', '例', '😀', '\u0000', '\u007f', '\u00a0'];
  const addresses: string[] = [];
  for (const base of bases) {
    for (let at = 0; at <= base.length; at++) {
      addresses.push(base.slice(0, at) + base.slice(at + 1));
      for (const character of characters) {
        addresses.push(base.slice(0, at) + character + base.slice(at));
        addresses.push(base.slice(0, at) + character + base.slice(at + 1));
      }
    }
  }
  const tlds = ['com', 'c', 'c0m', 'c-m', '0com', '123', '0x1f', '0X1F', 'x0', 'xn--p1ai', 'XN--P1AI', 'com-', '-com'];
  const labels = ['example', 'xn--bcher-kva', 'ab--cd', '123', 'a', label63, label64, 'EXAMPLE'];
  for (const tld of tlds) for (const label of labels) addresses.push(`user@${label}.${tld}`, `user@sub.${label}.${tld}`);
  for (const local of [local64, local65, 'l'.repeat(63)]) addresses.push(`${local}@example.com`);
  for (const extra of [-1, 0, 1]) addresses.push(`${'l'.repeat(12 + extra)}@${domain241}`, `${'l'.repeat(12)}@${domainOfLength(241 + extra)}`);
  return addresses;
}

describe('checkFormat against public test suites', () => {
  it('has at least 300 cases, with a reason wherever we differ from the suite', () => {
    expect(SUITES.length).toBeGreaterThanOrEqual(300);
    for (const entry of SUITES) if (entry.expected !== entry.suite) expect(entry.why, entry.address).toMatch(/RFC|DESIGN/);
  });

  it.each(SUITES.map((entry) => [entry.address, entry.expected, entry.source] as const))('%j is %s (%s)', (address, expected) => {
    const result = checkFormat(address);
    expect(result.ok ? 'valid' : 'invalid', JSON.stringify(result)).toBe(expected);
  });
});

describe('checkFormat fast path', () => {
  const everyAddress = [...VALID.map(([address]) => address), ...INVALID.map(([address]) => address), ...SUITES.map(({ address }) => address), ...nearMisses()];

  it('gives the full parser answer wherever it answers, over the table and the near misses', () => {
    const disagreements = everyAddress.flatMap((address) => {
      const fast = checkPlainFormat(address);
      const full = checkFormatFully(address);
      return fast === undefined || JSON.stringify(fast) === JSON.stringify(full) ? [] : [{ address, fast, full }];
    });
    expect(disagreements).toEqual([]);
    expect(everyAddress.filter((address) => JSON.stringify(checkFormat(address)) !== JSON.stringify(checkFormatFully(address)))).toEqual([]);
  });

  it('answers for plain addresses, and leaves everything unusual to the full parser', () => {
    for (const address of ['simple@example.com', 'User.Name+tag@Example.COM', "!#$%&'*+-/=?^_`{|}~@example.org", `${local64}@${label63}.com`]) {
      expect(checkPlainFormat(address), address).toEqual(checkFormatFully(address));
    }
    for (const address of [
      '"john doe"@example.com',
      'josé@example.com',
      'user@bücher.de',
      'user@xn--bcher-kva.de',
      'user@[192.0.2.1]',
      'user@example.0x1f',
      'us..er@example.com',
    ]) {
      expect(checkPlainFormat(address), address).toBeUndefined();
    }
    expect(everyAddress.filter((address) => checkPlainFormat(address) !== undefined).length).toBeGreaterThan(1000);
  });
});
