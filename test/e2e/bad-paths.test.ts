/**
 * Paths the user names that cannot be used end in one clear line naming the path and exit 2,
 * within seconds and before anything starts; `serve` stops on SIGTERM and SIGINT within 5 s in
 * every state; `admin` does not create a database where there was none unless told to. The built
 * binary (`npm run build` first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliSandbox, type CliSandbox } from '../support/cli-sandbox.js';
import { call, MAIL_DOMAIN, startMailWorld, type MailWorld } from '../support/service-app.js';
import { BIN, runCli, startService, type RunningService } from '../support/service.js';

/** Generous against the few hundred milliseconds these take; a hang or a spin fails the test. */
const BOUND_MS = 10_000;
const STOP_BOUND_MS = 5_000;

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Whether the process ended by itself within the bound (it is killed otherwise). */
  ended: boolean;
}

/** Runs the built CLI; kills it if it has not ended after `boundMs`. `onStart` may signal it. */
function runBounded(args: string[], options: { env?: NodeJS.ProcessEnv; boundMs?: number; onSpawn?: (pid: number) => void } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let ended = true;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      ended = false;
      child.kill('SIGKILL');
    }, options.boundMs ?? BOUND_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ended });
    });
    options.onSpawn?.(child.pid!);
  });
}

function expectOneLineExit2(outcome: Outcome, ...mentions: string[]): void {
  expect(outcome.ended, outcome.stderr).toBe(true);
  expect(outcome.code, outcome.stderr).toBe(2);
  const lines = outcome.stderr.split('\n').filter((line) => line !== '');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mailverify: /);
  expect(lines[0]).not.toMatch(/unexpected error|EEXIST|EISDIR|ENOENT|EACCES|\bat /);
  for (const mention of mentions) expect(lines[0]).toContain(mention);
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mailverify-paths-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('serve --data-dir that cannot be used', () => {
  const serve = (dataDir: string) => runBounded(['serve', '--port', '0', '--data-dir', dataDir]);

  it('a file: exit 2, one line', async () => {
    const file = join(root, 'list.csv');
    writeFileSync(file, 'email\n');
    expectOneLineExit2(await serve(file), file, 'is not a directory');
  });

  it('under /proc: exit 2, one line', async () => {
    expectOneLineExit2(await serve('/proc/mailverify-data'), '/proc/mailverify-data');
  });

  it('an existing directory nobody may write in, root included (/sys/kernel): exit 2, one line', async () => {
    expectOneLineExit2(await serve('/sys/kernel'), '/sys/kernel', 'cannot write');
  });

  it('a missing parent: exit 2, one line, nothing created', async () => {
    const dataDir = join(root, 'typo', 'data');
    expectOneLineExit2(await serve(dataDir), dataDir, 'does not exist');
    expect(existsSync(join(root, 'typo'))).toBe(false);
  });

  it('also through MAILVERIFY_DATA_DIR', async () => {
    const outcome = await runBounded(['serve', '--port', '0'], { env: { MAILVERIFY_DATA_DIR: '/proc/mailverify-data' } });
    expectOneLineExit2(outcome, '/proc/mailverify-data');
  });
});

describe('serve and worker with a proxy URL the engine refuses', () => {
  const MALFORMED = 'socks5://127.0.17.1:1080/path';
  const REFUSAL = 'engine option proxy: the proxy URL must not have a path';
  const commands = { serve: ['serve', '--port', '0'], worker: ['worker'] };

  it.each(Object.entries(commands))('%s --proxy with a path: exit 2, one line', async (_name, args) => {
    expectOneLineExit2(await runBounded([...args, '--proxy', MALFORMED]), REFUSAL);
  });

  it.each(Object.entries(commands))('%s with MAILVERIFY_PROXY with a path: exit 2, one line', async (_name, args) => {
    expectOneLineExit2(await runBounded(args, { env: { MAILVERIFY_PROXY: MALFORMED } }), REFUSAL);
  });
});

describe('serve, worker and bulk submit --local with a provider rules file that cannot be used', () => {
  const rules = () => {
    const file = join(root, 'provider-rules.json');
    writeFileSync(file, '{\n  "example.test": {\n    "source": "observed",\n    "rcptsPerSession": -1\n  }\n}\n');
    return file;
  };
  const commands = { serve: ['serve', '--port', '0'], worker: ['worker'] };

  it.each(Object.entries(commands))('%s --provider-rules: exit 2, one line naming the file, the line and the field', async (_name, args) => {
    const file = rules();
    expectOneLineExit2(await runBounded([...args, '--provider-rules', file]), file, 'line 4', '"example.test".rcptsPerSession');
  });

  it('bulk submit --local --provider-rules: exit 2 after the list summary, before any job exists', async () => {
    const list = join(root, 'rules-list.csv');
    writeFileSync(list, 'email\nann@example.test\n');
    const file = rules();
    const dataDir = join(root, 'rules-data');
    const outcome = await runBounded(['bulk', 'submit', list, '--local', '--data-dir', dataDir, '--provider-rules', file], {
      env: { CI: '1', MAILVERIFY_CONFIG_DIR: join(root, 'rules-config') },
    });
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr.trim().split('\n').at(-1)).toBe(
      `mailverify: provider rules ${file} line 4: "example.test".rcptsPerSession: must be a whole number from 1 to 1000`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('MAILVERIFY_PROVIDER_RULES the same', async () => {
    const file = rules();
    expectOneLineExit2(await runBounded(['worker'], { env: { MAILVERIFY_PROVIDER_RULES: file } }), file, 'line 4');
  });
});

describe('serve stops on a signal within 5 s in every state', () => {
  let world: MailWorld;
  const services: RunningService[] = [];

  beforeAll(async () => {
    // Every SMTP reply takes 20 s: a verify in flight would hold a slow shutdown far past the bound.
    world = await startMailWorld({ mailboxes: [`slow@${MAIL_DOMAIN}`], replyDelayMs: 20_000 });
  });
  afterAll(async () => {
    for (const service of services) await service.kill('SIGKILL');
    await world?.close();
  });

  async function stopWithin(service: RunningService, signal: NodeJS.Signals): Promise<void> {
    const started = Date.now();
    await service.kill(signal);
    expect(Date.now() - started).toBeLessThan(STOP_BOUND_MS);
  }

  it('SIGTERM while starting', async () => {
    const dataDir = join(root, 'starting');
    const outcome = await runBounded(['serve', '--port', '0', '--data-dir', dataDir], {
      boundMs: STOP_BOUND_MS,
      onSpawn: (pid) => setTimeout(() => process.kill(pid, 'SIGTERM'), 50),
    });
    expect(outcome.ended, outcome.stderr).toBe(true);
  });

  it('SIGINT when idle', async () => {
    const service = await startService({ engineArgs: world.engineArgs });
    services.push(service);
    await stopWithin(service, 'SIGINT');
  });

  it('SIGTERM with a verify waiting on a 20 s SMTP reply', async () => {
    const service = await startService({ engineArgs: world.engineArgs });
    services.push(service);
    const token = await service.createUser('waiting@example.test', { credits: 5 });
    const inFlight = call(service.baseUrl, 'POST', '/v1/verify', { token, json: { email: `slow@${MAIL_DOMAIN}` } }).catch((error: Error) => error);
    // The probe is under way once the SMTP server has its connection.
    for (let waited = 0; world.smtp.sessionCount() === 0 && waited < BOUND_MS; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(world.smtp.sessionCount()).toBeGreaterThan(0);
    await stopWithin(service, 'SIGTERM');
    await inFlight;
  });
});

describe('admin and a data dir without a database', () => {
  it('refuses and says where it looked, creating nothing; --create makes one', async () => {
    const dataDir = join(root, 'admin-typo');
    const refused = await runBounded(['admin', '--data-dir', dataDir, 'user', 'list']);
    expectOneLineExit2(refused, `looked for ${join(dataDir, 'mailverify.db')}`, '--create');
    expect(existsSync(dataDir)).toBe(false);

    const empty = join(root, 'admin-empty');
    mkdirSync(empty);
    expectOneLineExit2(await runBounded(['admin', 'user', 'list'], { env: { MAILVERIFY_DATA_DIR: empty } }), empty);
    expect(readdirSync(empty)).toEqual([]);

    const created = await runCli(['admin', '--data-dir', dataDir, '--create', 'user', 'add', 'first@example.test']);
    expect(created.code, created.stderr).toBe(0);
    const listed = await runCli(['admin', '--data-dir', dataDir, 'user', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ email: 'first@example.test' }]);
  });

  it('--create at a path that cannot be a data dir: exit 2, one line', async () => {
    expectOneLineExit2(await runBounded(['admin', '--data-dir', '/proc/mailverify-data', '--create', 'user', 'list']), '/proc/mailverify-data');
  });
});

describe('input and output paths of bulk', () => {
  let world: MailWorld;
  let service: RunningService;
  let cli: CliSandbox;

  beforeAll(async () => {
    world = await startMailWorld({ mailboxes: [`ann@${MAIL_DOMAIN}`] });
    service = await startService({ engineArgs: world.engineArgs });
    cli = await createCliSandbox({ MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: await service.createUser('paths@example.test', { credits: 10 }) });
  });
  afterAll(async () => {
    await cli?.close();
    await service?.stop();
    await world?.close();
  });

  const asOutcome = (run: { code: number | null; stdout: string; stderr: string }): Outcome => ({ ...run, signal: null, ended: true });

  it('bulk submit of a directory (EISDIR): exit 2 naming it', async () => {
    expectOneLineExit2(asOutcome(await cli.run(['bulk', 'submit', root])), root, 'is a directory');
  });

  it('bulk submit of a missing file (ENOENT): exit 2 naming it', async () => {
    const missing = join(root, 'no-such-list.csv');
    expectOneLineExit2(asOutcome(await cli.run(['bulk', 'submit', missing])), missing, 'no such file');
  });

  it('bulk results --input of an unreadable file (EACCES; a write-only sysfs file refuses root too): exit 2 naming it', async () => {
    const run = await cli.run(['bulk', 'results', 'some-job', '--input', '/sys/bus/platform/drivers_probe']);
    expectOneLineExit2(asOutcome(run), '/sys/bus/platform/drivers_probe', 'permission denied');
  });

  it('--output onto a directory, into a missing directory, into one nobody may write: exit 2 naming the path before any job is paid for', async () => {
    const list = join(root, 'ok.csv');
    writeFileSync(list, `email\nann@${MAIL_DOMAIN}\n`);
    const balance = async () => (JSON.parse((await cli.run(['whoami', '--json'])).stdout) as { balance: number }).balance;
    const before = await balance();
    const outputDir = join(root, 'out-dir');
    mkdirSync(outputDir);
    expectOneLineExit2(
      asOutcome(await cli.run(['bulk', 'submit', list, '--wait', '--quiet', '--output', outputDir, '--format', 'csv'])),
      outputDir,
      'cannot write',
    );
    expect(readdirSync(outputDir)).toEqual([]);
    const nowhere = join(root, 'missing-dir', 'out.csv');
    expectOneLineExit2(asOutcome(await cli.run(['bulk', 'submit', list, '--wait', '--quiet', '--output', nowhere])), nowhere, 'no such file');
    // EACCES for root too: sysfs lets nobody create files.
    const forbidden = '/sys/kernel/out.csv';
    expectOneLineExit2(asOutcome(await cli.run(['bulk', 'submit', list, '--wait', '--quiet', '--output', forbidden])), forbidden, 'permission denied');
    expect(await balance()).toBe(before);
  });
});
