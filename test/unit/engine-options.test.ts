import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_OPTIONS, resolveEngineOptions } from '../../src/engine/options.js';

describe('resolveEngineOptions', () => {
  it('fills in every option not given, and keeps those given', () => {
    const options = resolveEngineOptions({ smtpPort: 2525, dnsServers: undefined });
    expect(options).toMatchObject({ ...DEFAULT_ENGINE_OPTIONS, smtpPort: 2525 });
  });

  it('announces this host and an address at it by default, never anything of a target', () => {
    const options = resolveEngineOptions({ heloName: 'probe.example.net' });
    expect(options.mailFrom).toBe('verify@probe.example.net');
    expect(resolveEngineOptions().heloName).not.toBe('');
  });

  it.each([
    [{ concurrency: 0 }, /concurrency must be a whole number of at least 1, got 0/],
    [{ perHostConcurrency: 0 }, /perHostConcurrency must be a whole number of at least 1, got 0/],
    [{ perHostConcurrency: 1.5 }, /perHostConcurrency/],
  ])('refuses session limits that would never let a probe start: %j', (given, message) => {
    expect(() => resolveEngineOptions(given)).toThrow(message);
  });
});
