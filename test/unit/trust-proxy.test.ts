import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/cli/local-service/trust-proxy.js';

describe('--trust-proxy', () => {
  it('takes addresses and ranges as a list, or a hop count; the flag before the environment', () => {
    expect(parseTrustProxy('127.0.0.1', {})).toEqual(['127.0.0.1']);
    expect(parseTrustProxy(' 10.0.0.0/8, fd00::/8 ,loopback', {})).toEqual(['10.0.0.0/8', 'fd00::/8', 'loopback']);
    expect(parseTrustProxy('192.168.0.0/255.255.0.0', {})).toEqual(['192.168.0.0/255.255.0.0']);
    expect(parseTrustProxy('2', {})).toBe(2);
    expect(parseTrustProxy(undefined, { MAILVERIFY_TRUST_PROXY: '1' })).toBe(1);
    expect(parseTrustProxy('127.0.0.1', { MAILVERIFY_TRUST_PROXY: '1' })).toEqual(['127.0.0.1']);
    expect(parseTrustProxy(undefined, {})).toBeUndefined();
  });

  it.each(['0', '11', 'proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/8', 'true', '127.0.0.1,'])('refuses %j with exit 2', (raw) => {
    expect(() => parseTrustProxy(raw, {})).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
