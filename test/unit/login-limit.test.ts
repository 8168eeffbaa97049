import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../../src/server/auth/client-network.js';
import { ACCOUNT_FAILURES_BEFORE_DELAY, loginDelayMs, MAX_LOGIN_DELAY_MS } from '../../src/server/auth/login-limit.js';

describe('loginDelayMs: failures on an account slow its logins, never refuse them', () => {
  it('is 0 up to the free failures', () => {
    for (let failures = 0; failures <= ACCOUNT_FAILURES_BEFORE_DELAY; failures++) expect(loginDelayMs(failures)).toBe(0);
  });

  it('grows with every failure past them (doubling), up to a cap', () => {
    const delays = Array.from({ length: 20 }, (_, i) => loginDelayMs(ACCOUNT_FAILURES_BEFORE_DELAY + 1 + i));
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays[1]).toBe(2 * delays[0]!);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.at(-1)).toBe(MAX_LOGIN_DELAY_MS);
    expect(loginDelayMs(1_000_000)).toBe(MAX_LOGIN_DELAY_MS);
  });
});

describe('clientNetwork: what login limits count a client by', () => {
  it('is an IPv4 address itself, also when a dual-stack listener saw it IPv4-mapped', () => {
    expect(clientNetwork('203.0.113.66')).toBe('203.0.113.66');
    expect(clientNetwork('::ffff:203.0.113.66')).toBe('203.0.113.66');
  });

  it("is an IPv6 address's /64 in every spelling: a subscriber picks any address in it", () => {
    const network = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:fffe',
      '2001:DB8:1:2:a:b:c:d',
      '2001:db8:1:2::10.0.0.1',
      '2001:db8:1:2::9%eth0',
    ]) {
      expect(clientNetwork(address), address).toBe(network);
    }
    expect(clientNetwork('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});
