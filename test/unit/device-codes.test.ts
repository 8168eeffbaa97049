import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DEVICE_FLOW_TIMES,
  deviceFlowTimes,
  displayUserCode,
  generateDeviceCode,
  generateUserCode,
  hashCode,
  normaliseUserCode,
  USER_CODE_ALPHABET,
} from '../../src/server/auth/device-codes.js';

/** The codes of a device's login (RFC 8628 §6.1): what a person reads off a terminal and types on the dashboard. */

describe('user codes', () => {
  it('are XXXX-XXXX from twenty consonants: no vowels, no digits, nothing to confuse', () => {
    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    const codes = Array.from({ length: 500 }, generateUserCode);
    for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    // Random, not a counter: 500 draws from 20^8 do not repeat, and every letter turns up.
    expect(new Set(codes).size).toBe(500);
    expect(new Set(codes.join('').replaceAll('-', ''))).toEqual(new Set(USER_CODE_ALPHABET));
  });

  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdf-ghjk', 'BCDFGHJK'],
    ['bcdfghjk', 'BCDFGHJK'],
    [' BCDF GHJK\n', 'BCDFGHJK'],
    ['B-C-D-F-G-H-J-K', 'BCDFGHJK'],
  ])('forgive case, spaces and dashes: %j is %s', (typed, normalised) => {
    expect(normaliseUserCode(typed)).toBe(normalised);
  });

  it.each(['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ1', 'BCDF_GHJK', 'ВCDF-GHJK'])('are not %j', (typed) => {
    expect(normaliseUserCode(typed)).toBeUndefined();
  });

  it('read back as XXXX-XXXX, and every generated code normalises to itself', () => {
    expect(displayUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
    const code = generateUserCode();
    expect(displayUserCode(normaliseUserCode(code)!)).toBe(code);
  });
});

describe('device codes and hashes', () => {
  it('a device code is 32 random bytes, base64url; only its SHA-256 is kept', () => {
    const code = generateDeviceCode();
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateDeviceCode()).not.toBe(code);
    expect(hashCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashCode(code)).toBe(hashCode(code));
    expect(hashCode('BCDFGHJK')).not.toBe(hashCode('BCDFGHJL'));
  });
});

describe('the times of a device login', () => {
  it('are ten minutes and a poll every 5 s, unless the test-only variables say otherwise', () => {
    expect(deviceFlowTimes({})).toEqual({ lifetimeSeconds: 600, intervalSeconds: 5 });
    expect(DEFAULT_DEVICE_FLOW_TIMES).toEqual({ lifetimeSeconds: 600, intervalSeconds: 5 });
    expect(deviceFlowTimes({ MAILVERIFY_TEST_DEVICE_CODE_SECONDS: '2', MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS: '1' })).toEqual({
      lifetimeSeconds: 2,
      intervalSeconds: 1,
    });
    expect(() => deviceFlowTimes({ MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS: '0' })).toThrow('MAILVERIFY_TEST_DEVICE_INTERVAL_SECONDS must be whole seconds');
    expect(() => deviceFlowTimes({ MAILVERIFY_TEST_DEVICE_CODE_SECONDS: '1.5' })).toThrow('whole seconds');
  });
});
