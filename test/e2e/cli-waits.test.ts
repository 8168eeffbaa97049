import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliSandbox, StartedCli } from '../support/cli-sandbox.js';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { MAIL_DOMAIN } from '../support/service-app.js';
import { BIN, startService, type RunningService } from '../support/service.js';

/**
 * Never a silent wait, never a wait for a keyboard nobody is at, and a --wait that outlives a
 * restarting service (issue 14, item 4): the built CLI against the real service.
 */

const ALICE = `alice@${MAIL_DOMAIN}`;
/** Answered by DNS only after a while: its job is still processing when the service is stopped. */
const SLOW_DOMAIN = 'slow.test';
const SLOW_DNS_MS = 5_000;
/** Generous: the message is due at once, this only bounds a test that would otherwise hang. */
const MESSAGE_WITHIN_MS = 10_000;

let setup: CliWorld;
let cli: CliSandbox;
/** The service of the outage test, restarted on the same port and data: stopped at the end, its data removed. */
let restarted: RunningService | undefined;
let restartedData: string | undefined;

beforeAll(async () => {
  setup = await startCliWorld({
    mailboxes: [ALICE],
    user: 'waits@example.test',
    prepare: (world) => world.dns.set(SLOW_DOMAIN, { delayMs: SLOW_DNS_MS, records: [] }),
    serveArgs: ['--dns-timeout', String(3 * SLOW_DNS_MS)],
  });
  cli = setup.cli;
});

afterAll(async () => {
  await restarted?.stop();
  if (restartedData) await rm(restartedData, { recursive: true, force: true });
  await setup?.close();
});

/** Resolves once the run's stderr matches, or fails after `ms` with what it printed. */
async function stderrShows(run: StartedCli, pattern: RegExp, ms = MESSAGE_WITHIN_MS): Promise<string> {
  const deadline = Date.now() + ms;
  while (!pattern.test(run.output().stderr)) {
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`stderr never showed ${pattern}:\n${run.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return run.output().stderr;
}

describe('waits are said', () => {
  it('a rate-limited verify of several addresses says what it waits for and until when, at once', async () => {
    const token = await setup.service.createUser('paced@example.test', { credits: 10, rateLimit: 1 });
    const set = await setup.service.admin(['rate-limit', 'set', 'paced@example.test', '1', '--window', '120']);
    expect(set.code, set.stderr).toBe(0);
    const run = cli.start(['verify', ALICE, `bob@${MAIL_DOMAIN}`, `carol@${MAIL_DOMAIN}`], { env: { MAILVERIFY_TOKEN: token } });
    const stderr = await stderrShows(run, /waiting for the account's rate limit/);
    expect(stderr).toMatch(/waiting for the account's rate limit \(1 request per 120 seconds\); next request in \d+(s|m \d+s) \(at \d\d:\d\d:\d\d\)/);
    run.child.kill('SIGTERM');
    await run.done;
  });

  it('--json bulk submit --wait says what it waits for as an event on stdout at once; then the results, then the summary', async () => {
    const input = await setup.file('slow.txt', `someone@${SLOW_DOMAIN}\n`);
    const run = cli.start(['--json', 'bulk', 'submit', input, '--wait']);
    const deadline = Date.now() + MESSAGE_WITHIN_MS;
    while (!run.output().stdout.includes('"event":"progress"')) {
      if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`no progress event:\n${run.output().stdout}\n${run.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/\{"error"/);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ event: 'progress', processed: 0, total: 1 });
    const results = lines.filter((line) => line.event === undefined);
    expect(results).toEqual([expect.objectContaining({ email: `someone@${SLOW_DOMAIN}`, result: expect.stringMatching(/^(invalid|unknown)$/), row: 1 })]);
    expect(lines.at(-1)).toMatchObject({ event: 'summary', total: 1 });
  });
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `typed` once `prompt` shows (if given). */
function onTerminal(args: string[], env: NodeJS.ProcessEnv, answer?: { prompt: string; typed: string }): Promise<{ screen: string; code: number | null }> {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, NO_COLOR: '1', MAILVERIFY_CONFIG_DIR: cli.configDir, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    if (answer && screen.includes(answer.prompt)) {
      child.stdin.write(answer.typed);
      answer = undefined;
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ screen, code })));
}

describe('stdin on a terminal', () => {
  it('`-` on a terminal says it reads stdin and how to end; what is typed is verified', async () => {
    const { screen, code } = await onTerminal(
      ['verify', '--local', '-'],
      { CI: '' },
      {
        prompt: 'reading addresses from stdin, one per line; Ctrl-D to end',
        typed: 'not-an-email\r\u0004',
      },
    );
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/invalid\s+not-an-email/);
  });

  it.each([
    ['--no-input', ['--no-input'], { CI: '' }],
    ['CI', [], { CI: 'true' }],
  ])('with %s, `-` on a terminal exits 2 at once instead of waiting for typing', async (_name, flags, env) => {
    const verify = await onTerminal([...flags, 'verify', '--local', '-'], env);
    expect(verify.code, verify.screen).toBe(2);
    expect(verify.screen).toContain('--no-input (or CI) says nobody will type there');
    const submit = await onTerminal([...flags, 'bulk', 'submit', '-'], { ...env, MAILVERIFY_TOKEN: setup.token, MAILVERIFY_BASE_URL: setup.service.baseUrl });
    expect(submit.code, submit.screen).toBe(2);
  });
});

describe('--wait through a restarting service', () => {
  it('the service stopped during --wait and started again 20 s later on the same port and data: the CLI finishes the job', { timeout: 180_000 }, async () => {
    const engineArgs = [...setup.world.engineArgs, '--dns-timeout', String(3 * SLOW_DNS_MS)];
    const first = await startService({ engineArgs });
    restartedData = first.dataDir;
    const token = await first.createUser('restart@example.test', { credits: 10 });
    const port = Number(new URL(first.baseUrl).port);
    const env = { MAILVERIFY_TOKEN: token, MAILVERIFY_BASE_URL: first.baseUrl };
    const input = await setup.file('restart.csv', `email\n${ALICE}\nlate@${SLOW_DOMAIN}\n`);
    const output = join(setup.dir, 'restart-out.csv');
    const run = cli.start(['bulk', 'submit', input, '--wait', '--output', output], { env });
    await stderrShows(run, /waiting for job/, 30_000);

    await first.kill('SIGTERM');
    // A second CLI with a short --wait-timeout gives up, printing how to resume.
    const state = JSON.parse(await readFile(join(cli.configDir, 'bulk-jobs.json'), 'utf8')) as { submissions: { chunks: { jobId: string }[] }[] };
    const jobId = state.submissions.at(-1)!.chunks[0]!.jobId;
    const impatient = await cli.run(['bulk', 'results', jobId, '--wait', '--wait-timeout', '2s'], { env });
    expect(impatient.code).toBe(1);
    expect(impatient.stderr).toContain(`resume with: mailverify bulk results ${jobId} --wait --wait-timeout 2s`);
    await stderrShows(run, /no answer \(cannot reach .*\); trying again in/, 30_000);

    await new Promise((resolve) => setTimeout(resolve, 20_000));
    restarted = await startService({ dataDir: first.dataDir, port, engineArgs });
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`${first.baseUrl} answers again`);
    const rows = (await readFile(output, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(',').slice(0, 2));
    expect(rows).toEqual([
      ['email', 'result'],
      [ALICE, 'valid'],
      [`late@${SLOW_DOMAIN}`, expect.stringMatching(/^(invalid|unknown)$/)],
    ]);
  });
});
