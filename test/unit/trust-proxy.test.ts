import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../src/cli/local-service/trust-proxy.js';
import { trustedProxies } from '../../src/server/http/trusted-proxies.js';

describe('--trust-proxy', () => {
  it('takes addresses and ranges as a list, with a hop count among them; the flag before the environment', () => {
    expect(parseTrustProxy('127.0.0.1', {})).toEqual({ addresses: ['127.0.0.1'] });
    expect(parseTrustProxy(' 10.0.0.0/8, fd00::/8 ,loopback', {})).toEqual({ addresses: ['10.0.0.0/8', 'fd00::/8', 'loopback'] });
    expect(parseTrustProxy('192.168.0.0/255.255.0.0', {})).toEqual({ addresses: ['192.168.0.0/255.255.0.0'] });
    expect(parseTrustProxy('10.0.0.5,2', {})).toEqual({ addresses: ['10.0.0.5'], hops: 2 });
    expect(parseTrustProxy(undefined, { MAILVERIFY_TRUST_PROXY: '10.0.0.0/8,1' })).toEqual({ addresses: ['10.0.0.0/8'], hops: 1 });
    expect(parseTrustProxy('127.0.0.1', { MAILVERIFY_TRUST_PROXY: '1' })).toEqual({ addresses: ['127.0.0.1'] });
    expect(parseTrustProxy(undefined, {})).toBeUndefined();
  });

  it('refuses a hop count without the proxies it counts: a client reaching the port directly would pick its own address', () => {
    for (const env of [
      { flag: '1', env: {} },
      { flag: undefined, env: { MAILVERIFY_TRUST_PROXY: '2' } },
    ]) {
      expect(() => parseTrustProxy(env.flag, env.env)).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: expect.stringMatching(/hop count alone believes .* any client that reaches the port directly; name the proxies too/),
        }),
      );
    }
  });

  it.each(['0', '11', '10.0.0.5,0', '10.0.0.5,1,2', 'proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/8', 'true', '127.0.0.1,'])(
    'refuses %j with exit 2',
    (raw) => {
      expect(() => parseTrustProxy(raw, {})).toThrow(expect.objectContaining({ exitCode: 2 }));
    },
  );
});

describe('trustedProxies: what fastify is told to believe', () => {
  it('passes the addresses alone as proxy-addr reads them', () => {
    expect(trustedProxies({ addresses: ['127.0.0.1', '10.0.0.0/8'] })).toBe('127.0.0.1,10.0.0.0/8');
    expect(trustedProxies(undefined)).toBeUndefined();
  });

  it('with a hop count believes a hop only within the count and from a listed proxy', () => {
    const trust = trustedProxies({ addresses: ['10.0.0.0/8', '192.168.0.0/255.255.0.0', 'loopback', 'fd00::/8'], hops: 2 }) as (
      address: string,
      hop: number,
    ) => boolean;
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('::ffff:10.1.2.3', 0)).toBe(true);
    expect(trust('192.168.7.7', 1)).toBe(true);
    expect(trust('127.0.0.5', 0)).toBe(true);
    expect(trust('fd00::1', 1)).toBe(true);
    expect(trust('10.1.2.3', 2)).toBe(false);
    // A client that reached the port itself is no proxy, whatever the hop.
    expect(trust('203.0.113.9', 0)).toBe(false);
    expect(trust('2001:db8::1', 0)).toBe(false);
    expect(trust('not an address', 0)).toBe(false);
  });
});
