import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { localFixtureFlags } from '../support/engine-fixtures.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';

/**
 * The package as a user gets it: `npm pack` of a copy of the checkout as a fresh clone has it (no
 * dist/: prepack must build it; a copy, so that the shared dist/ is never rewritten under other
 * tests), installed with
 * `npm install -g --prefix` into a temporary prefix, then its `mailverify` run. An install that warns
 * EBADENGINE fails: every dependency an installed copy gets must support the Node we declare, and the
 * repository's `overrides` do not reach an installed copy.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  exec('npm', args, {
    cwd,
    env: { ...process.env, npm_config_loglevel: 'warn', npm_config_fund: 'false', npm_config_audit: 'false' },
    maxBuffer: 16 * 1024 * 1024,
  });

let work: string;
let installed: string;
let installWarnings: string;
let dns: DnsFixture;
let smtp: SmtpFixture;
let smtpPort: number;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mailverify-install-'));
  const clone = join(work, 'clone');
  const { stdout: files } = await exec('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  for (const file of files.split('\n').filter((name) => name !== '' && existsSync(join(ROOT, name)))) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  await npm(['pack', '--pack-destination', work, '--silent'], clone);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
  const prefix = join(work, 'prefix');
  const { stderr } = await npm(['install', '-g', '--prefix', prefix, '--prefer-offline', join(work, tarball)], work);
  installWarnings = stderr;
  installed = join(prefix, 'bin', 'mailverify');

  smtpPort = await freePort();
  smtp = await startSmtpServer({ host: '127.0.29.1', port: smtpPort, mailboxes: ['ann@installed.test'] });
  dns = await startDnsServer({
    'installed.test': { records: [{ type: 'MX', exchange: 'mx.installed.test', priority: 10 }] },
    'mx.installed.test': { records: [{ type: 'A', address: '127.0.29.1' }] },
  });
}, 600_000);

afterAll(async () => {
  await smtp?.close();
  await dns?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const run = (args: string[]) => exec(installed, args, { env: { ...process.env, NO_COLOR: '1', MAILVERIFY_NO_UPDATE_CHECK: '1' } });

describe('the installed package', () => {
  it('installs without an engine warning', () => {
    expect(installWarnings).not.toMatch(/EBADENGINE/);
  });

  it('runs --version and --help', async () => {
    const { version } = (await import(join(ROOT, 'package.json'), { with: { type: 'json' } })).default as { version: string };
    expect((await run(['--version'])).stdout.trim()).toBe(version);
    expect((await run(['--help'])).stdout).toMatch(/Usage: mailverify/);
  });

  it('verifies an address with its own engine', async () => {
    const { stdout } = await run(['verify', ...localFixtureFlags(dns, smtpPort), '--json', 'ann@installed.test']);
    expect(JSON.parse(stdout)).toMatchObject({ email: 'ann@installed.test', result: 'valid' });
  });
});
