/**
 * `--fail-on <verdict>=<share>` through a service: the built CLI against the real service asking
 * loopback DNS and SMTP fixtures. The gate is judged after the output file is written (exit 10 with
 * the share on stderr), passes at or under the share (exit 0), and a bad value is a usage error
 * naming the flag before anything is sent.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliWorld, type CliWorld } from '../support/cli-world.js';
import { MAIL_DOMAIN } from '../support/service-app.js';

const GOOD = Array.from({ length: 8 }, (_, index) => `good${index}@${MAIL_DOMAIN}`);
const GONE = [`gone1@${MAIL_DOMAIN}`, `gone2@${MAIL_DOMAIN}`];

let world: CliWorld;
let list: string;

beforeAll(async () => {
  world = await startCliWorld({ mailboxes: GOOD, user: 'gate@example.com' });
  list = await world.file('list.csv', `email\n${[...GOOD, ...GONE].join('\n')}\n`);
}, 60_000);

afterAll(() => world?.close());

describe('--fail-on with shares through a service', () => {
  it('bulk submit --wait writes the output, then exits 10 naming the share; bulk results judges the same job', { timeout: 60_000 }, async () => {
    const output = join(world.dir, 'cleaned.csv');
    const submitted = await world.cli.run(['bulk', 'submit', list, '--wait', '--output', output, '--fail-on', 'invalid=15%', '--fail-on', 'unknown=0%']);
    expect(submitted.code, submitted.stderr).toBe(10);
    expect(submitted.stderr).toContain('mailverify: invalid is 20% of 10 addresses, above --fail-on invalid=15%\n');
    const rows = (await readFile(output, 'utf8')).trim().split('\n');
    expect(rows).toHaveLength(11);
    expect(rows.filter((row) => row.endsWith(',invalid') || row.includes(',invalid,'))).toHaveLength(2);
    const jobId = /submitted as job (\S+)/.exec(submitted.stderr)?.[1] ?? submitted.stdout.trim();
    expect(jobId).toMatch(/\S/);

    const under = await world.cli.run(['bulk', 'results', jobId, '--output', join(world.dir, 'again.csv'), '--fail-on', 'invalid=20%']);
    expect(under.code, under.stderr).toBe(0);
    expect(existsSync(join(world.dir, 'again.csv'))).toBe(true);

    const json = await world.cli.run(['--json', 'bulk', 'results', jobId, '--only', 'valid', '--fail-on', 'invalid=0.1']);
    expect(json.code).toBe(10);
    // Every result line is out on stdout before the gate's error (--only does not change the count).
    expect(json.stdout.trim().split('\n')).toHaveLength(8);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'share_exceeded', exitCode: 10, message: 'invalid is 20% of 10 addresses, above --fail-on invalid=0.1' },
    });
  });

  it('refuses a bad share, naming the flag, before sending anything (exit 2)', async () => {
    const refused = await world.cli.run(['bulk', 'submit', list, '--wait', '--fail-on', 'invalid=5']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--fail-on: "invalid=5" needs a share');
    const unwaited = await world.cli.run(['bulk', 'submit', list, '--fail-on', 'invalid=5%']);
    expect(unwaited.code).toBe(2);
    expect(unwaited.stderr).toContain('--fail-on needs --wait (or --local)');
  });
});
