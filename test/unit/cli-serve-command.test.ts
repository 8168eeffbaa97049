import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as serve from '../../src/cli/commands/serve.js';
import { CliError, ExitCode, UsageError } from '../../src/cli/output/errors.js';
import { memoryIo, parseCommandLine } from '../support/cli-parse.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { testTempDir } from '../support/temp-dirs.js';
import { processListeners, runUntilStopped } from '../support/service-command.js';

/** `serve`: every setting resolved by `parse` from flags and environment, and `run` as a real service on loopback. */

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => serve.parse(parseCommandLine(['serve', ...argv]), env);

describe('serve: parse', () => {
  it('resolves the defaults of every setting', async () => {
    const options = await parse([]);
    expect(options).toMatchObject({
      host: '127.0.0.1',
      port: 8025,
      worker: true,
      httpTimeouts: {},
      trustProxy: undefined,
      uploadRetentionMs: undefined,
      logLevel: 'warn',
      leaseMs: 60_000,
      metrics: undefined,
      standingIntervalMs: 30 * 60_000,
      store: { dataDir: undefined, databaseUrl: undefined, storeTimeout: undefined },
      policy: { refundUnknown: false, retentionMs: undefined, evidenceWindowMs: 180 * 86_400_000, reuse: { scope: 'install' } },
    });
    // The engine's options complete, as the engine fills them in.
    expect(options.engine).toMatchObject({ webCheck: true, allowPrivateNetworks: false, smtpPort: 25 });
  });

  it('takes each flag over its environment variable', async () => {
    const env = {
      MAILVERIFY_LOG_LEVEL: 'debug',
      MAILVERIFY_TRUST_PROXY: '10.0.0.0/8',
      MAILVERIFY_UPLOAD_RETENTION: '1h',
      MAILVERIFY_LEASE_SECONDS: '7',
      MAILVERIFY_METRICS_PORT: '9100',
      MAILVERIFY_STANDING_INTERVAL: '5m',
      MAILVERIFY_SMTP_PORT: '2525',
    };
    const flags = ['--log-level', 'INFO', '--trust-proxy', '127.0.0.1,1', '--upload-retention', '12h', '--lease-seconds', '5'];
    const more = ['--metrics-port', '0', '--metrics-host', '127.0.0.2', '--standing-interval', '0', '--smtp-port', '2626', '--headers-timeout', '5000'];
    expect(await parse([...flags, ...more, '--no-worker', '--host', '127.0.0.3', '--port', '0', '--data-dir', '/srv/mv'], env)).toMatchObject({
      host: '127.0.0.3',
      port: 0,
      worker: false,
      httpTimeouts: { headersMs: 5000 },
      trustProxy: { addresses: ['127.0.0.1'], hops: 1 },
      uploadRetentionMs: 12 * 3_600_000,
      logLevel: 'info',
      leaseMs: 5_000,
      metrics: { host: '127.0.0.2', port: 0 },
      standingIntervalMs: 0,
      engine: { smtpPort: 2626 },
      store: { dataDir: '/srv/mv' },
    });
    expect(await parse([], env)).toMatchObject({
      trustProxy: { addresses: ['10.0.0.0/8'] },
      uploadRetentionMs: 3_600_000,
      logLevel: 'debug',
      leaseMs: 7_000,
      metrics: { host: '127.0.0.1', port: 9100 },
      standingIntervalMs: 5 * 60_000,
      engine: { smtpPort: 2525 },
    });
  });

  it.each([
    [['--port', '70000'], {}, '--port must be a whole number from 0 to 65535, got "70000"'],
    [['--log-level', 'loud'], {}, '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [[], { MAILVERIFY_LOG_LEVEL: 'chatty' }, '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "chatty"'],
    [['--request-timeout', '0'], {}, '--request-timeout must be a whole number from 1 to 2147483647, got "0"'],
    [['--trust-proxy', '1'], {}, '--trust-proxy 1: a hop count alone believes the X-Forwarded-For'],
    [['--upload-retention', 'soon'], {}, '--upload-retention: "soon" is no duration'],
    [['--lease-seconds', '0'], {}, '--lease-seconds must be a whole number from 1 to 86400, got "0"'],
    [['--metrics-port', '70000'], {}, '--metrics-port must be a whole number from 0 to 65535, got "70000"'],
    [['--cache-scope', 'world'], {}, '--cache-scope must be install or account, got "world"'],
    [['--standing-interval', 'soon'], {}, '--standing-interval: "soon" is no duration'],
    [['--proxy', 'socks5://proxy.test:1080/path'], {}, 'engine option proxy: the proxy URL must not have a path'],
    // The first wrong setting is the one said: the port before the log level.
    [['--port', '-1', '--log-level', 'loud'], {}, '--port must be a whole number from 0 to 65535, got "-1"'],
  ])('refuses %j with %j (exit 2)', async (argv, env, message) => {
    const refused = parse(argv, env);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('serve: run', () => {
  let dns: DnsFixture;
  const dir = testTempDir('serve-command');
  // The engine asks a DNS server on loopback, never the internet, and checks no egress's standing.
  const engineArgs = () => ['--dns-server', dns.server, '--allow-private-networks', '--no-web-check', '--standing-interval', '0'];

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns?.close());

  it('listens, answers, and returns at SIGTERM, twice in one process, leaving no listener behind', async () => {
    const before = processListeners();
    for (const argv of [[], ['--no-worker', '--metrics-port', '0']]) {
      const options = await parse(['--port', '0', '--data-dir', join(dir, 'data'), ...argv, ...engineArgs()]);
      const { io, stderr } = memoryIo({});
      const stopped = await runUntilStopped(serve.run(options, io), stderr, /^mailverify: listening on (http:\S+)/m, async ([, url]) => {
        const health = await fetch(`${url}/healthz`);
        expect(health.status).toBe(200);
      });
      expect(stopped).toMatch(/^mailverify: SIGTERM received, shutting down$/m);
      if (argv.includes('--no-worker')) expect(stopped).toMatch(/listening on http:\S+ \(API only: no job runner\)\nmailverify: metrics on http:/);
      expect(processListeners()).toEqual(before);
    }
  });

  describe('on a port that is taken', () => {
    let taken: Server;
    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it('fails (exit 1) naming --port, having made nothing and left no listener', async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
      const { port } = taken.address() as { port: number };
      const dataDir = join(dir, 'never-made');
      const before = processListeners();
      const failed = serve.run(await parse(['--port', String(port), '--data-dir', dataDir, ...engineArgs()]), memoryIo({}).io);
      await expect(failed).rejects.toThrow(CliError);
      await expect(failed).rejects.toMatchObject({
        message: `cannot listen on 127.0.0.1:${port}: the port is in use`,
        exitCode: ExitCode.failure,
        hint: 'choose another with --port (or --host)',
      });
      expect(existsSync(dataDir)).toBe(false);
      expect(processListeners()).toEqual(before);
    });
  });
});
