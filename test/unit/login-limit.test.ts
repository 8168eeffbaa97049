import { describe, expect, it } from 'vitest';
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
