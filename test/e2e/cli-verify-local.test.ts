import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { testTempDir } from '../support/temp-dirs.js';

const BIN = fileURLToPath(new URL('../../bin/mailverify.js', import.meta.url));
const CHECK_FIELDS = [
  'format',
  'domainExists',
  'hasMx',
  'domainReachable',
  'smtpStatus',
  'isDisposable',
  'isRole',
  'isBlacklisted',
  'isKnownProvider',
  'isCatchAll',
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dns: DnsFixture;
let smtp: SmtpFixture;
let engineArgs: string[];

function run(args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', MAILVERIFY_DNSBL_ZONES: 'dnsbl.test', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  const port = await freePort();
  smtp = await startSmtpServer({ host: '127.0.0.61', port, mailboxes: ['alice@cli.test'] });
  dns = await startDnsServer({
    'cli.test': { records: [{ type: 'MX', exchange: 'mx.cli.test', priority: 10 }] },
    'mx.cli.test': { records: [{ type: 'A', address: '127.0.0.61' }] },
  });
  engineArgs = ['--local', '--dns-server', dns.server, '--smtp-port', String(port), '--allow-private-networks', '--no-web-check', '--retry-schedule', 'none'];
});

afterAll(async () => {
  await smtp?.close();
  await dns?.close();
});

describe('mailverify verify --local (built binary)', () => {
  it('prints one JSON object per line with exactly the interface fields', async () => {
    const { code, stdout, stderr } = await run(['verify', ...engineArgs, '--json', 'alice@cli.test', 'nobody@cli.test']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(
        Object.keys(line)
          .filter((key) => key !== 'notEstablished')
          .sort(),
      ).toEqual(['checks', 'email', 'reason', 'reasonCode', 'result']);
      expect(Object.keys(line.checks).sort()).toEqual([...CHECK_FIELDS].sort());
      expect(typeof line.reason).toBe('string');
      expect(line.reason).not.toBe('');
    }
    expect(lines.map((line) => [line.email, line.result])).toEqual([
      ['alice@cli.test', 'valid'],
      ['nobody@cli.test', 'invalid'],
    ]);
    expect(lines[1].reason).toMatch(/5\.1\.1/);
  });

  it('prints a human line per address by default, without colour under NO_COLOR', async () => {
    const { code, stdout } = await run(['verify', ...engineArgs, 'alice@cli.test']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^valid\s+alice@cli\.test\s+\S/);
    expect(stdout).not.toContain('\u001b[');
  });

  it('exits 3 when a verdict matches --fail-on, and 0 when none does', async () => {
    const failing = await run(['verify', ...engineArgs, '--fail-on', 'invalid,unknown', 'alice@cli.test', 'nobody@cli.test']);
    expect(failing.code).toBe(3);
    expect(failing.stdout.trim().split('\n')).toHaveLength(2);
    const passing = await run(['verify', ...engineArgs, '--fail-on', 'invalid', 'alice@cli.test']);
    expect(passing.code).toBe(0);
  });

  it('takes reason codes in --fail-on as well as verdicts', async () => {
    const byCode = await run(['verify', ...engineArgs, '--fail-on', 'mailbox_not_found', 'alice@cli.test', 'nobody@cli.test']);
    expect(byCode.code).toBe(3);
    expect(byCode.stderr).toContain('a result matched --fail-on: mailbox_not_found');
    const otherCode = await run(['verify', ...engineArgs, '--fail-on', 'mailbox_full,dns_failure', 'alice@cli.test', 'nobody@cli.test']);
    expect(otherCode.code).toBe(0);
  });

  it('reads one address per line from stdin for -', async () => {
    const { code, stdout } = await run(['verify', ...engineArgs, '--json', '-'], 'alice@cli.test\n\n  nobody@cli.test \n');
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).email),
    ).toEqual(['alice@cli.test', 'nobody@cli.test']);
  });

  it('exits 2 with one line on stderr for an unknown flag or a bad --fail-on', async () => {
    const unknown = await run(['verify', '--local', '--frobnicate', 'alice@cli.test']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')[0]).toMatch(/unknown option '--frobnicate'/);
    const badList = await run(['verify', ...engineArgs, '--fail-on', 'nonsense', 'alice@cli.test']);
    expect(badList.code).toBe(2);
    expect(badList.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('mailverify verify --local with provider rules', () => {
  const dir = testTempDir('cli-rules');
  const rulesFile = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('exits 2 for a malformed rules file, with one line naming the file, the line and the field', async () => {
    const bad = rulesFile('bad.json', '{\n  "cli.test": {\n    "source": "observed",\n    "sessionLimit": "one"\n  }\n}\n');
    const { code, stdout, stderr } = await run(['verify', ...engineArgs, '--provider-rules', bad, 'alice@cli.test']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([`mailverify: provider rules ${bad} line 4: "cli.test".sessionLimit: must be a whole number from 1 to 1000`]);
    const broken = rulesFile('broken.json', '{\n  "cli.test": {\n    "source": "observed"\n    "pauseMs": 5\n  }\n}\n');
    const syntax = await run(['verify', ...engineArgs, '--provider-rules', broken, 'alice@cli.test']);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(new RegExp(`^mailverify: provider rules ${broken} line 4: \\(syntax\\): not valid JSON`));
  });

  it('exits 2 naming a rules file that is not there', async () => {
    const missing = join(dir, 'missing.json');
    const { code, stderr } = await run(['verify', ...engineArgs, 'alice@cli.test'], '', { MAILVERIFY_PROVIDER_RULES: missing });
    expect(code).toBe(2);
    expect(stderr).toContain(missing);
  });

  it('takes rules from MAILVERIFY_PROVIDER_RULES: a 250 from hosts that accept everything is no longer valid', async () => {
    const file = rulesFile('accept-all.json', JSON.stringify({ 'cli.test': { acceptProvesMailbox: false, skipCatchAllProbe: true, source: 'test' } }));
    const { code, stdout } = await run(['verify', ...engineArgs, '--json', 'alice@cli.test'], '', { MAILVERIFY_PROVIDER_RULES: file });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ result: 'unknown', reasonCode: 'accept_unproven' });
  });
});

describe('mailverify verify --local, two domains on one slow host with one session slot', () => {
  it('waits for the first session to be hung up before the second opens, and still answers every address', async () => {
    const host = '127.0.16.41';
    const port = await freePort(host);
    // Slow replies, the QUIT's included: the second domain's session waits for the first's hang-up.
    const slow = await startSmtpServer({ host, port, mailboxes: ['a@one.hangup.test', 'b@two.hangup.test'], replyDelayMs: 50 });
    const zones = await startDnsServer({
      'one.hangup.test': { records: [{ type: 'MX', exchange: 'mx.hangup.test', priority: 10 }] },
      'two.hangup.test': { records: [{ type: 'MX', exchange: 'mx.hangup.test', priority: 10 }] },
      'mx.hangup.test': { records: [{ type: 'A', address: host }] },
    });
    try {
      const args = [
        '--local',
        '--dns-server',
        zones.server,
        '--smtp-port',
        String(port),
        '--allow-private-networks',
        '--no-web-check',
        '--retry-schedule',
        'none',
        '--per-host-concurrency',
        '1',
      ];
      const { code, stdout, stderr } = await run(['verify', ...args, '--json', 'a@one.hangup.test', 'b@two.hangup.test']);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(
        stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { result: string }).result),
      ).toEqual(['valid', 'valid']);
      expect(slow.peakSessions()).toBe(1);
    } finally {
      await slow.close();
      await zones.close();
    }
  });
});
