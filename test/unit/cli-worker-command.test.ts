import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as worker from '../../src/cli/commands/worker.js';
import { UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { testTempDir } from '../support/temp-dirs.js';
import { processListeners, runUntilStopped } from '../support/service-command.js';

/** `worker`: every setting resolved by `parse` from flags and environment, and `run` as a real job runner on a SQLite store. */

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => worker.parse(parseCommandLine(['worker', ...argv]), env);

describe('worker: parse', () => {
  it('resolves the defaults of every setting, and each flag over its environment variable', async () => {
    expect(await parse([])).toMatchObject({
      logLevel: 'warn',
      leaseMs: 60_000,
      metrics: undefined,
      standingIntervalMs: 30 * 60_000,
      store: { dataDir: undefined, databaseUrl: undefined, storeTimeout: undefined },
      policy: { refundUnknown: false, reuse: { scope: 'install' } },
      engine: { webCheck: true },
    });
    const env = { MAILVERIFY_LOG_LEVEL: 'error', MAILVERIFY_LEASE_SECONDS: '30', MAILVERIFY_REFUND_UNKNOWN: '1', MAILVERIFY_WEB_CHECK: '0' };
    expect(await parse([], env)).toMatchObject({ logLevel: 'error', leaseMs: 30_000, policy: { refundUnknown: true }, engine: { webCheck: false } });
    expect(await parse(['--log-level', 'trace', '--lease-seconds', '2', '--cache-scope', 'account', '--store-timeout', '900'], env)).toMatchObject({
      logLevel: 'trace',
      leaseMs: 2_000,
      policy: { reuse: { scope: 'account' } },
      store: { storeTimeout: '900' },
    });
  });

  it.each([
    [['--log-level', 'loud'], {}, '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [['--lease-seconds', '86401'], {}, '--lease-seconds must be a whole number from 1 to 86400, got "86401"'],
    [[], { MAILVERIFY_METRICS_PORT: 'nine' }, '--metrics-port must be a whole number from 0 to 65535, got "nine"'],
    [['--standing-interval', 'soon'], {}, '--standing-interval: "soon" is no duration'],
    [[], { MAILVERIFY_STANDING_INTERVAL: '30 minutes' }, '--standing-interval: "30 minutes" is no duration'],
    [['--cache-ttl', 'unknown=1d'], {}, '--cache-ttl: an unknown is never reused'],
  ])('refuses %j with %j (exit 2)', async (argv, env, message) => {
    const refused = parse(argv, env);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('worker: run', () => {
  let dns: DnsFixture;
  const dir = testTempDir('worker-command');

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns?.close());

  it('says it runs, and returns at SIGTERM, twice on one store, leaving no listener behind', async () => {
    const before = processListeners();
    // The engine asks a DNS server on loopback, never the internet, and checks no egress's standing.
    const argv = ['--data-dir', join(dir, 'data'), '--dns-server', dns.server, '--allow-private-networks', '--no-web-check', '--standing-interval', '0'];
    for (const more of [[], ['--lease-seconds', '5', '--metrics-port', '0']]) {
      const { io, stderr } = memoryIo({});
      const stopped = await runUntilStopped(
        worker.run(await parse([...argv, ...more]), io),
        stderr,
        /^mailverify: worker running \(pid \d+, leases of (\d+) s\)$/m,
      );
      expect(stopped).toContain(`mailverify: worker running (pid ${process.pid}, leases of ${more.length === 0 ? 60 : 5} s)`);
      if (more.length > 0) expect(stopped).toMatch(/^mailverify: metrics on http:\/\/127\.0\.0\.1:\d+/m);
      expect(stopped).toMatch(/^mailverify: SIGTERM received, shutting down$/m);
      expect(processListeners()).toEqual(before);
    }
  });
});
