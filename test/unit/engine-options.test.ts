import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addEngineFlags, engineFlags, engineOptionsFrom } from '../../src/cli/options/engine-flags.js';
import { parsedCommand } from '../../src/cli/options/parsed-command.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { describeProxy, parseProxyUrl } from '../../src/engine/net/proxy-url.js';
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

describe('proxy and source address options', () => {
  it('accepts a socks5 URL and an IP address', () => {
    const options = resolveEngineOptions({ proxies: ['socks5://user:pass@127.0.0.1:1080'], sourceAddresses: ['192.0.2.10'] });
    expect(options).toMatchObject({ proxies: ['socks5://user:pass@127.0.0.1:1080'], sourceAddresses: ['192.0.2.10'] });
  });

  it.each([
    [{ proxies: ['http://127.0.0.1:3128'] }, /only socks5:\/\/ proxies/],
    [{ proxies: ['not a url'] }, /must be a URL/],
    [{ sourceAddresses: ['eth0'] }, /sourceAddresses: eth0 is not an IP address/],
  ])('refuses %j', (given, message) => {
    expect(() => resolveEngineOptions(given)).toThrow(message);
  });

  it('reads credentials from the URL and shows the proxy without them', () => {
    const proxy = parseProxyUrl('socks5://probe:p%40ss@[::1]:1081');
    expect(proxy).toEqual({ host: '::1', port: 1081, username: 'probe', password: 'p@ss' });
    expect(describeProxy(proxy)).toBe('SOCKS5 proxy [::1]:1081');
    expect(parseProxyUrl('socks5://proxy.example.net').port).toBe(1080);
  });
});

describe('--proxy and --source-address flags', () => {
  const command = () => addEngineFlags(new Command('verify').exitOverride());
  const parsed = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const verify = command();
    verify.parse(args, { from: 'user' });
    return engineOptionsFrom(engineFlags(parsedCommand([], verify)), env);
  };

  it('take the flag, else the environment', () => {
    expect(parsed(['--proxy', 'socks5://127.0.0.1:1080', '--source-address', '127.0.0.5'])).toMatchObject({
      proxies: ['socks5://127.0.0.1:1080'],
      sourceAddresses: ['127.0.0.5'],
    });
    expect(parsed([], { MAILVERIFY_PROXY: 'socks5://u:p@127.0.0.1:1080', MAILVERIFY_SOURCE_ADDRESS: '::1' })).toMatchObject({
      proxies: ['socks5://u:p@127.0.0.1:1080'],
      sourceAddresses: ['::1'],
    });
  });

  it('refuse a password on the command line, where every user of the machine can read it', () => {
    expect(() => parsed(['--proxy', 'socks5://u:secret@127.0.0.1:1080'])).toThrow(UsageError);
    expect(() => parsed(['--proxy', 'socks5://u:secret@127.0.0.1:1080'])).toThrow(/must not carry a password/);
  });

  it('refuse what is not a SOCKS5 URL or an IP address', () => {
    expect(() => parsed(['--proxy', 'http://127.0.0.1:8080'])).toThrow(UsageError);
    expect(() => parsed(['--source-address', 'localhost'])).toThrow(/--source-address must be an IP address/);
  });
});
