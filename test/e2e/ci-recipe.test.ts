/**
 * docs/ci.md's GitHub Actions workflow and crontab line, run as written: the workflow's `run:` steps
 * in bash as a runner runs them, the crontab line's command in sh as cron does, the built CLI on PATH
 * in place of the install step, against loopback DNS and SMTP fixtures given through the engine's
 * environment. The gate must fail a list over its shares (exit 10, the artifact written) and pass
 * one at them.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { BIN } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { testTempDir } from '../support/temp-dirs.js';

const HOST = '127.0.17.81';
const DOMAIN = 'ci.local.test';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with: Record<string, string>;
}

/**
 * The steps of the first job of a workflow, read the way this workflow is written: `key: value`
 * lines, `run: |` block scalars, a `with:` map. Enough for docs/ci.md; not a YAML parser.
 */
function workflowSteps(yaml: string): Step[] {
  const lines = yaml.split('\n');
  const start = lines.findIndex((line) => /^\s*steps:\s*$/.test(line));
  expect(start, 'the workflow has steps').toBeGreaterThan(0);
  const steps: Step[] = [];
  let step: Step | undefined;
  let inWith = false;
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const match = /^(\s*)(- )?([\w-]+):\s*(.*)$/.exec(line);
    if (!match) throw new Error(`unexpected workflow line: ${line}`);
    const [, indent, dash, key, value] = match as unknown as [string, string, string | undefined, string, string];
    if (dash) steps.push((step = { with: {} }));
    if (step === undefined) throw new Error(`a key before the first step: ${line}`);
    if (dash) inWith = false;
    if (key === 'with') {
      inWith = true;
      continue;
    }
    if (value === '|') {
      const body: string[] = [];
      while (index + 1 < lines.length && (lines[index + 1]!.trim() === '' || lines[index + 1]!.search(/\S/) > indent.length + (dash ? 2 : 0))) {
        body.push(lines[(index += 1)]!.trim());
      }
      step[key as 'run'] = body.join('\n').trim();
    } else if (inWith && !dash) step.with[key] = value;
    else step[key as 'name' | 'uses' | 'run' | 'if'] = value.replace(/^'(.*)'$/, '$1');
  }
  return steps;
}

/** The fenced block of `language` in the markdown. */
function fenced(markdown: string, language: string): string {
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(markdown);
  expect(block, `docs/ci.md has a ${language} block`).not.toBeNull();
  return block![1]!;
}

let dns: DnsFixture;
let smtp: SmtpFixture;
let dir: string;
let env: NodeJS.ProcessEnv;
let steps: Step[];
let crontab: string;

/** 20 addresses, `invalid` of them without a mailbox. */
async function writeList(path: string, invalid: number): Promise<void> {
  const rows = Array.from({ length: 20 }, (_, index) => `${index < invalid ? 'gone' : 'ok'}${index}@${DOMAIN}`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `email\n${rows.join('\n')}\n`);
}

/** Runs a shell without blocking this process: the DNS and SMTP fixtures answer from it. */
function shell(command: string, argv: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  const markdown = await readFile(new URL('../../docs/ci.md', import.meta.url), 'utf8');
  steps = workflowSteps(fenced(markdown, 'yaml'));
  crontab = fenced(markdown, 'crontab').trim();
  const port = await freePort(HOST);
  smtp = await startSmtpServer({ host: HOST, port, mailboxes: Array.from({ length: 20 }, (_, index) => `ok${index}@${DOMAIN}`) });
  dns = await startDnsServer(mxZones(DOMAIN, { [`mx.${DOMAIN}`]: HOST }));
  // The built CLI under the name the install step would give it.
  const bin = join(testTempDir('ci-bin'), 'bin');
  await mkdir(bin);
  await symlink(BIN, join(bin, 'mailverify'));
  env = {
    ...process.env,
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    NO_COLOR: '1',
    MAILVERIFY_TOKEN: '',
    MAILVERIFY_DNS_SERVERS: dns.server,
    MAILVERIFY_SMTP_PORT: String(port),
    MAILVERIFY_ALLOW_PRIVATE_NETWORKS: '1',
    MAILVERIFY_WEB_CHECK: '0',
    MAILVERIFY_RETRY_SCHEDULE: 'none',
    MAILVERIFY_DNSBL_ZONES: 'dnsbl.test',
  };
});

beforeEach(() => {
  dir = testTempDir('ci-recipe');
  env = { ...env, HOME: dir, MAILVERIFY_CONFIG_DIR: join(dir, 'config'), MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data') };
});

afterAll(async () => {
  await Promise.all([smtp?.close(), dns?.close()]);
});

describe('docs/ci.md: the GitHub Actions workflow', () => {
  /** Runs the workflow's run steps in order as a runner does (bash -eo pipefail), stopping at the first that fails; the install step is the built CLI on PATH. */
  async function runWorkflow() {
    const ran: { name: string; status: number | null; stderr: string }[] = [];
    for (const step of steps) {
      if (step.run === undefined || /^npm install --global mailverify$/.test(step.run)) continue;
      const done = await shell('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], dir);
      ran.push({ name: step.name ?? step.run, status: done.status, stderr: done.stderr });
      if (done.status !== 0) break;
    }
    return ran;
  }

  it('installs mailverify, cleans with --local, keeps the output as an artifact even on failure', () => {
    expect(steps.some((step) => step.run === 'npm install --global mailverify')).toBe(true);
    const clean = steps.find((step) => step.run?.includes('bulk submit'));
    expect(clean?.run).toMatch(/--local/);
    const artifact = steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    expect(artifact).toMatchObject({ if: 'always()', with: { path: 'cleaned.csv' } });
  });

  it('fails the job with exit 10 over a share, after writing the artifact', { timeout: 60_000 }, async () => {
    await writeList(join(dir, 'contacts.csv'), 2);
    const ran = await runWorkflow();
    expect(ran.at(-1)!.status, ran.at(-1)!.stderr).toBe(10);
    expect(ran.at(-1)!.stderr).toContain('mailverify: invalid is 10% of 20 addresses, above --fail-on invalid=5%\n');
    const artifact = steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))!.with.path!;
    const rows = (await readFile(join(dir, artifact), 'utf8')).trim().split('\n');
    expect(rows).toHaveLength(21);
    expect(rows.filter((row) => row.includes(',invalid,'))).toHaveLength(2);
  });

  it('passes a list at its share (5% of 20 is one address)', { timeout: 60_000 }, async () => {
    await writeList(join(dir, 'contacts.csv'), 1);
    const ran = await runWorkflow();
    expect(ran.map((step) => step.status)).toEqual(ran.map(() => 0));
    expect(ran.some((step) => step.name === 'Clean the list')).toBe(true);
    expect(existsSync(join(dir, 'cleaned.csv'))).toBe(true);
  });
});

describe('docs/ci.md: the crontab line', () => {
  /** The line's command, run as cron runs it: in sh, from HOME. */
  function runCronLine() {
    const fields = crontab.split(/\s+/);
    expect(fields.slice(0, 5).join(' ')).toMatch(/^[\d*]+ [\d*]+ \* \* \*$/);
    const command = crontab.replace(/^(\S+\s+){5}/, '');
    expect(command, 'a % in a crontab line is a new line').not.toContain('%');
    return shell('sh', ['-c', command], dir);
  }

  it('mails (prints) only the gate line when the list goes bad, and nothing when it is fine', { timeout: 60_000 }, async () => {
    await writeList(join(dir, 'lists', 'contacts.csv'), 3);
    const failing = await runCronLine();
    expect(failing.status, failing.stderr).toBe(10);
    expect(failing.stdout).toBe('');
    expect(failing.stderr).toBe('mailverify: invalid is 15% of 20 addresses, above --fail-on invalid=0.05\n');
    expect(existsSync(join(dir, 'lists', 'cleaned.csv'))).toBe(true);

    await writeList(join(dir, 'lists', 'contacts.csv'), 0);
    const passing = await runCronLine();
    expect(passing.status, passing.stderr).toBe(0);
    expect(passing.stdout + passing.stderr).toBe('');
  });
});
