/**
 * `verify --local --explain` against the real Postfix fixture (test/support/postfix/, `npm run
 * test:setup`), through the built CLI (`npm run build` first): the transcript shows the mail host,
 * the egress, and every SMTP line with its time, the RCPT and Postfix's own reply among them.
 */
import { describe, expect, it } from 'vitest';
import { missing } from '../support/machine.js';
import { MX_HOST, postfixEngineArgs, postfixProblem } from '../support/postfix.js';
import { runCli } from '../support/service.js';

const absent = missing('test/e2e/cli-explain.test.ts', 'the Postfix fixture', await postfixProblem());

/** A sender postgrey has not seen (it greylists by sender too), as test/integration/postfix.test.ts does. */
const engineArgs = () => [
  '--local',
  ...postfixEngineArgs(),
  '--allow-private-networks',
  '--no-web-check',
  '--dnsbl-zone',
  'dnsbl.test',
  '--retry-schedule',
  'none',
];

interface Explained {
  result: string;
  details: {
    mxHosts: { host: string; address: string }[];
    connections: { ms: number; host: string; address: string; egress: string; outcome: string }[];
    transcript: { ms: number; dir: 'sent' | 'received'; line: string }[];
    notes: string[];
  };
}

describe.skipIf(absent)('verify --local --explain against Postfix', () => {
  it('gives details.transcript in JSON: the RCPT sent and the reply Postfix gave, in time order', async () => {
    const run = await runCli(['verify', ...engineArgs(), '--explain', '--json', 'nobody@mailbox.test']);
    expect(run.code, run.stderr).toBe(0);
    const explained = JSON.parse(run.stdout) as Explained;
    expect(explained.result).toBe('invalid');
    const { details } = explained;
    expect(details.mxHosts).toEqual([{ host: 'mx.mailbox.test', address: MX_HOST }]);
    expect(details.connections[0]).toMatchObject({ host: 'mx.mailbox.test', address: MX_HOST, egress: 'default', outcome: 'connected' });
    const rcpt = details.transcript.findIndex((line) => line.dir === 'sent' && line.line === 'RCPT TO:<nobody@mailbox.test>');
    expect(rcpt, JSON.stringify(details.transcript)).toBeGreaterThan(0);
    expect(details.transcript[rcpt + 1]).toMatchObject({
      dir: 'received',
      line: '550 5.1.1 <nobody@mailbox.test>: Recipient address rejected: User unknown in virtual mailbox table',
    });
    // The whole dialogue, from Postfix's greeting on, each line timed from the start.
    expect(details.transcript[0]).toMatchObject({ dir: 'received', line: expect.stringMatching(/^220 /) });
    expect(details.transcript.map((line) => line.line)).toEqual(expect.arrayContaining(['EHLO probe.verifier.test', 'QUIT']));
    const times = details.transcript.map((line) => line.ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The catch-all probe's random address was asked in the same session, before the real one.
    expect(details.transcript.filter((line) => line.dir === 'sent' && line.line.startsWith('RCPT TO:'))).toHaveLength(2);
  });

  it('prints the transcript readably under the result line', async () => {
    const run = await runCli(['verify', ...engineArgs(), '--explain', 'alice@mailbox.test']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^valid\s+alice@mailbox\.test/);
    expect(lines).toContain(`  mail hosts: mx.mailbox.test (${MX_HOST})`);
    expect(run.stdout).toMatch(new RegExp(`^\\s+\\d+ ms  connect mx\\.mailbox\\.test \\(${MX_HOST.replaceAll('.', '\\.')}\\) via default: connected$`, 'm'));
    expect(run.stdout).toMatch(/^\s+\d+ ms {2}> RCPT TO:<alice@mailbox\.test>\n\s+\d+ ms {2}< 250 2\.1\.5 Ok$/m);
  });

  it('without --explain prints no transcript', async () => {
    const run = await runCli(['verify', ...engineArgs(), '--json', 'alice@mailbox.test']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).not.toHaveProperty('details');
  });
});
