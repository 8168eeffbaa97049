/** `bulk submit --local` run again after this machine could not verify: asked again, never resumed as final. */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { runCli } from '../support/service.js';

let lying: DnsFixture;
let truthful: DnsFixture;
let dir: string;

beforeAll(async () => {
  lying = await startDnsServer({}, { host: '127.0.13.7', truthful: false });
  truthful = await startDnsServer({}, { host: '127.0.13.8' });
  dir = await mkdtemp(join(tmpdir(), 'mailverify-local-resume-'));
});

afterAll(async () => {
  await Promise.all([lying?.close(), truthful?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const local = (dns: DnsFixture) => [
  '--local',
  '--dns-server',
  dns.server,
  '--allow-private-networks',
  '--no-web-check',
  '--dnsbl-zone',
  'dnsbl.test',
  '--dns-timeout',
  '1000',
];
const reasonCodes = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { reasonCode: string }).reasonCode);

describe('bulk submit --local after the network is fixed', () => {
  it('asks again what this machine could not verify, and --fresh resumes nothing', { timeout: 60_000 }, async () => {
    const env = { MAILVERIFY_LOCAL_DATA_DIR: join(dir, 'data'), MAILVERIFY_CONFIG_DIR: join(dir, 'config') };
    await writeFile(join(dir, 'list.txt'), 'ann@nowhere.test\nbob@nowhere.test\n');
    const out = join(dir, 'out.ndjson');
    const args = (dns: DnsFixture, ...more: string[]) => ['bulk', 'submit', join(dir, 'list.txt'), ...local(dns), '--output', out, ...more];

    const broken = await runCli(args(lying), { env });
    expect(broken.code, broken.stderr).toBe(9);
    // No file was there and no --force was given: it was simply written.
    expect(broken.stderr).toContain(`they are written to ${out}`);
    expect(broken.stderr).not.toContain('--force');
    expect(await reasonCodes(out)).toEqual(['resolver_untruthful', 'resolver_untruthful']);

    const fixed = await runCli(args(truthful), { env });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stderr).toContain('asking again 2 addresses: unknown before, or verified longer ago than --max-age (30d)');
    expect(fixed.stderr).not.toMatch(/resuming: 2\/2/);
    expect(await reasonCodes(out)).toEqual(['domain_not_found', 'domain_not_found']);

    // Nothing left to ask again: resumed as it is, without a word of asking.
    const again = await runCli(args(truthful), { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('asking again');

    const fresh = await runCli(args(lying, '--fresh', '--force'), { env });
    expect(fresh.code, fresh.stderr).toBe(9);
    expect(fresh.stderr).toContain('--fresh: asking every address');
    expect(fresh.stderr).toContain(`${out} was written anyway (--force)`);
    expect(await reasonCodes(out)).toEqual(['resolver_untruthful', 'resolver_untruthful']);
    expect(existsSync(out)).toBe(true);
  });
});
