import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addEngineFlags, engineFlags, resolvedEngineOptions } from '../../src/cli/options/engine-flags.js';
import { parsedCommand } from '../../src/cli/options/parsed-command.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { egressPool } from '../../src/engine/net/egress-pool.js';

const pool = (proxies: string[], sourceAddresses: string[]) =>
  egressPool({ proxies, sourceAddresses }).map(({ key, proxy, sourceAddress }) => ({ key, proxy, sourceAddress }));

describe('egressPool', () => {
  it('is the one default egress when nothing is given, as before the pool', () => {
    expect(pool([], [])).toEqual([{ key: 'default', proxy: null, sourceAddress: null }]);
  });

  it('makes each source address an egress, in the order given', () => {
    expect(pool([], ['127.0.0.76', '::1'])).toEqual([
      { key: '127.0.0.76', proxy: null, sourceAddress: '127.0.0.76' },
      { key: '::1', proxy: null, sourceAddress: '::1' },
    ]);
  });

  it('makes each proxy an egress, keyed without its credentials, reached from the one source address', () => {
    const egresses = egressPool({ proxies: ['socks5://u:secret@127.0.0.1:1080', 'socks5://[::1]:1081'], sourceAddresses: ['127.0.0.5'] });
    expect(egresses.map((egress) => egress.key)).toEqual(['SOCKS5 proxy 127.0.0.1:1080', 'SOCKS5 proxy [::1]:1081']);
    expect(egresses.map((egress) => egress.sourceAddress)).toEqual(['127.0.0.5', '127.0.0.5']);
    expect(egresses[0]!.settings).toEqual({ proxy: { host: '127.0.0.1', port: 1080, username: 'u', password: 'secret' }, sourceAddress: '127.0.0.5' });
    expect(JSON.stringify(egresses.map((egress) => egress.key))).not.toContain('secret');
  });

  it.each([
    [['socks5://127.0.0.1:1080'], ['127.0.0.5', '127.0.0.6'], /2 source addresses with a proxy/],
    [[], ['127.0.0.5', '127.0.0.5'], /127\.0\.0\.5 is given twice/],
    [['socks5://a:b@127.0.0.1:1080', 'socks5://127.0.0.1:1080'], [], /SOCKS5 proxy 127\.0\.0\.1:1080 is given twice/],
    [['socks5://127.0.0.1:1080/x'], [], /engine option proxy: the proxy URL must not have a path/],
    [[], ['eth0'], /sourceAddresses: eth0 is not an IP address/],
  ])('refuses %j with %j', (proxies, sourceAddresses, message) => {
    expect(() => egressPool({ proxies, sourceAddresses })).toThrow(RangeError);
    expect(() => egressPool({ proxies, sourceAddresses })).toThrow(message);
  });
});

describe('the pool flags', () => {
  const resolved = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const command = addEngineFlags(new Command('verify').exitOverride());
    command.parse(args, { from: 'user' });
    return resolvedEngineOptions(engineFlags(parsedCommand([], command)), env);
  };

  it('repeat --source-address and --proxy', async () => {
    const options = await resolved(['--source-address', '127.0.0.76', '--source-address', '127.0.0.77']);
    expect(options.sourceAddresses).toEqual(['127.0.0.76', '127.0.0.77']);
    const proxied = await resolved(['--proxy', 'socks5://127.0.0.1:1080', '--proxy', 'socks5://127.0.0.2:1080']);
    expect(proxied.proxies).toEqual(['socks5://127.0.0.1:1080', 'socks5://127.0.0.2:1080']);
  });

  it('read comma lists from the environment, credentials allowed there', async () => {
    const options = await resolved([], { MAILVERIFY_SOURCE_ADDRESS: '127.0.0.76, 127.0.0.77' });
    expect(options.sourceAddresses).toEqual(['127.0.0.76', '127.0.0.77']);
    const proxied = await resolved([], { MAILVERIFY_PROXY: 'socks5://u:p@127.0.0.1:1080,socks5://127.0.0.2:1080' });
    expect(proxied.proxies).toEqual(['socks5://u:p@127.0.0.1:1080', 'socks5://127.0.0.2:1080']);
  });

  it('take the flags over the environment, whole', async () => {
    const options = await resolved(['--source-address', '127.0.0.78'], { MAILVERIFY_SOURCE_ADDRESS: '127.0.0.76,127.0.0.77' });
    expect(options.sourceAddresses).toEqual(['127.0.0.78']);
  });

  it('make a pool the engine refuses a usage error that says why', async () => {
    const twoWithProxy = resolved(['--proxy', 'socks5://127.0.0.1:1080', '--source-address', '127.0.0.76', '--source-address', '127.0.0.77']);
    await expect(twoWithProxy).rejects.toThrow(UsageError);
    await expect(twoWithProxy).rejects.toThrow(/2 source addresses with a proxy: give one source address/);
    await expect(resolved([], { MAILVERIFY_SOURCE_ADDRESS: '127.0.0.76,127.0.0.76' })).rejects.toThrow(/given twice/);
  });

  it('take the cool-down of a bench as a duration, at least a minute', async () => {
    expect((await resolved([])).egressCooldownMs).toBe(3_600_000);
    expect((await resolved(['--egress-cooldown', '30m'])).egressCooldownMs).toBe(1_800_000);
    expect((await resolved([], { MAILVERIFY_EGRESS_COOLDOWN: '2h' })).egressCooldownMs).toBe(7_200_000);
    expect(() => resolved(['--egress-cooldown', 'soon'])).toThrow(/--egress-cooldown: "soon" is no duration/);
    await expect(resolved(['--egress-cooldown', '30s'])).rejects.toThrow(UsageError);
    await expect(resolved(['--egress-cooldown', '30s'])).rejects.toThrow(/egressCooldownMs must be at least 1 minute, got 30000 ms/);
  });

  it('refuse a bad entry by the flag or variable that carried it', async () => {
    expect(() => resolved(['--source-address', '127.0.0.76', '--source-address', 'eth0'])).toThrow(
      /--source-address must be an IP address of this host, got "eth0"/,
    );
    await expect(resolved([], { MAILVERIFY_SOURCE_ADDRESS: '127.0.0.76,eth0' })).rejects.toThrow(/MAILVERIFY_SOURCE_ADDRESS must be an IP address/);
    expect(() => resolved(['--proxy', 'socks5://127.0.0.1:1080', '--proxy', 'socks5://u:pw@127.0.0.2:1080'])).toThrow(/--proxy must not carry a password/);
  });
});
