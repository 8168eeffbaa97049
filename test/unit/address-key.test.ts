import { describe, expect, it } from 'vitest';
import { addressDomain } from '../../src/engine/checks/format.js';
import { addressKey, exactAddressKey } from '../../src/engine/checks/address-key.js';

const KELVIN = '\u212a';

describe('addressKey: the address as the engine asks it', () => {
  it('folds ASCII letters and trims', () => {
    expect(addressKey('  Ann.Smith@Example.COM ')).toBe('ann.smith@example.com');
    expect(addressKey('"John Doe"@Example.com')).toBe('"john doe"@example.com');
  });

  it('keeps every other character of the local part as given: no Unicode case folding, no normalisation', () => {
    // toLowerCase() makes the Kelvin sign a `k`; a mail server does not.
    expect(addressKey(`${KELVIN}ate@example.com`)).toBe(`${KELVIN}ate@example.com`);
    expect(addressKey(`${KELVIN}ate@example.com`)).not.toBe(addressKey('kate@example.com'));
    expect(addressKey('ÜLI@example.com')).toBe('Üli@example.com');
    // NFD and NFC spellings are different addresses to a server that does not normalise.
    expect(addressKey('u\u0308li@example.com')).not.toBe(addressKey('\u00fcli@example.com'));
  });

  it('gives the domain as its lower-case A-label, the name the engine asks DNS for', () => {
    expect(addressKey('Jörg@BÜCHER.de')).toBe('jörg@xn--bcher-kva.de');
    expect(addressKey('jörg@xn--BCHER-kva.de')).toBe(addressKey('Jörg@bücher.de'));
    expect(addressKey('Jörg@BÜCHER.de').split('@')[1]).toBe(addressDomain('Jörg@BÜCHER.de'));
  });

  it('ASCII-folds what is not an address, and address literals', () => {
    expect(addressKey(` Not-An-Address${KELVIN} `)).toBe(`not-an-address${KELVIN}`);
    expect(addressKey('Ünïcode@[IPv6:2001:DB8::1]')).toBe('Ünïcode@[ipv6:2001:db8::1]');
  });
});

describe('exactAddressKey: the address as the engine asks it, case kept', () => {
  it('keeps the local part as given, case included, and lower-cases the domain', () => {
    expect(exactAddressKey('  Ann.Smith@Example.COM ')).toBe('Ann.Smith@example.com');
    expect(exactAddressKey('Ann@example.com')).not.toBe(exactAddressKey('ann@example.com'));
    expect(exactAddressKey('"John@Doe"@Example.com')).toBe('"John@Doe"@example.com');
    expect(exactAddressKey('Jörg@BÜCHER.de')).toBe('Jörg@xn--bcher-kva.de');
  });

  it('folds to addressKey, for the addresses whose provider folds case', () => {
    for (const address of ['Ann.Smith@Example.COM', 'Jörg@BÜCHER.de', `${KELVIN}ate@Example.com`]) {
      expect(addressKey(exactAddressKey(address))).toBe(addressKey(address));
    }
  });

  it('keeps what is not an address as given, trimmed', () => {
    expect(exactAddressKey(` Not-An-Address${KELVIN} `)).toBe(`Not-An-Address${KELVIN}`);
  });
});
