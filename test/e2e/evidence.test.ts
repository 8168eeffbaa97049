/**
 * An account's own evidence end to end, on each store: the built CLI imports a mixed folder (a DSN,
 * an mbox, a Postfix log, an SES notification, and a file that is none of these) into `mailverify
 * serve`, the same events go through POST /v1/evidence, `evidence list --json` says what each
 * address's events decide, and a bulk job over a catch-all domain and a domain whose 250 proves
 * nothing (a provider rule, as for Yahoo) answers `invalid/bounced` and `valid/delivered` for
 * exactly the addresses with evidence; another account's identical job is untouched, and after
 * DELETE /v1/evidence the account's fresh job has the old verdicts back. Needs `npm run build` first.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../support/evidence.js';
import { readEvidencePath } from '../../src/engine/evidence/read.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { mxZones } from '../support/engine-fixtures.js';
import { call, pollProgress } from '../support/service-app.js';
import { runCli, startService, type RunningService } from '../support/service.js';
import { freePort, startSmtpServer, type SmtpFixture } from '../support/smtp-server.js';
import { STORE_KINDS, type StoreFixture } from '../support/stores.js';
import { testTempDir } from '../support/temp-dirs.js';

const HOSTS = { catchAll: '127.0.26.1', acceptAll: '127.0.26.2', dns: '127.0.26.10' };
const CATCH_ALL = 'catchall.test';
/** Answers 250 to every RCPT; a provider rule says that proves nothing (as ours says of Yahoo and AOL). */
const ACCEPT_ALL = 'yahoo-like.test';
const at = (local: string, domain: string) => `${local}@${domain}`;
const ADDRESSES = ['gone', 'kept', 'other'].flatMap((local) => [at(local, CATCH_ALL), at(local, ACCEPT_ALL)]);

/** A DSN (RFC 3464) saying the recipient's server refused the address as unknown, `date` in RFC 5322 form. */
function dsn(recipient: string, status: string, diagnostic: string, date: string): string {
  return [
    'Return-Path: <>',
    `Date: ${date}`,
    'From: Mail Delivery System <MAILER-DAEMON@mx.ours.test>',
    'To: sender@ours.test',
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B1"',
    '',
    '--B1',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'Your message could not be delivered.',
    '',
    '--B1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.ours.test',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    'Action: failed',
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    '--B1--',
    '',
  ].join('\n');
}

/** The mixed folder: what a sender has lying about. */
function writeEvidenceFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gone.eml'),
    dsn(at('gone', CATCH_ALL), '5.1.1', '550 5.1.1 <gone@catchall.test>: Recipient address rejected: User unknown', 'Fri, 20 Nov 2026 12:00:00 +0000'),
  );
  const mbox = [
    `From MAILER-DAEMON Fri Nov 20 11:00:00 2026\n${dsn(at('gone', ACCEPT_ALL), '5.1.1', "554 5.1.1 <gone@yahoo-like.test>: delivery error: dd This user doesn't have a yahoo-like.test account", 'Fri, 20 Nov 2026 11:00:00 +0000')}`,
    // A full mailbox says the mailbox exists: it changes nothing.
    `From MAILER-DAEMON Fri Nov 20 11:05:00 2026\n${dsn(at('other', CATCH_ALL), '5.2.2', '552 5.2.2 Mailbox full', 'Fri, 20 Nov 2026 11:05:00 +0000')}`,
  ].join('\n');
  writeFileSync(join(dir, 'bounces.mbox'), mbox);
  writeFileSync(
    join(dir, 'maillog'),
    [
      'Nov 21 09:00:00 mx postfix/smtp[4242]: 3F2A1C0: to=<kept@catchall.test>, relay=mx.catchall.test[192.0.2.1]:25, delay=0.4, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 99)',
      'Nov 21 09:00:01 mx postfix/qmgr[4243]: 3F2A1C0: removed',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'ses.json'),
    JSON.stringify({
      notificationType: 'Delivery',
      delivery: { timestamp: '2026-11-22T10:41:00.000Z', recipients: [at('kept', ACCEPT_ALL)], smtpResponse: '250 2.0.0 OK' },
      mail: { source: 'sender@ours.test' },
    }),
  );
  writeFileSync(join(dir, 'notes.txt'), 'Remember to clean the list before the newsletter.\n');
}

let dns: DnsFixture;
const smtp: SmtpFixture[] = [];
let engineArgs: string[];
let folder: string;

beforeAll(async () => {
  const port = await freePort([HOSTS.catchAll, HOSTS.acceptAll]);
  smtp.push(await startSmtpServer({ host: HOSTS.catchAll, port, catchAll: true }));
  smtp.push(await startSmtpServer({ host: HOSTS.acceptAll, port, catchAll: true }));
  dns = await startDnsServer(
    { ...mxZones(CATCH_ALL, { [`mx.${CATCH_ALL}`]: HOSTS.catchAll }), ...mxZones(ACCEPT_ALL, { [`mx.${ACCEPT_ALL}`]: HOSTS.acceptAll }) },
    { host: HOSTS.dns },
  );
  const dir = testTempDir('evidence');
  const rules = join(dir, 'rules.json');
  writeFileSync(
    rules,
    JSON.stringify({ [ACCEPT_ALL]: { acceptProvesMailbox: false, skipCatchAllProbe: true, source: 'test: a provider whose 250 proves nothing' } }),
  );
  folder = join(dir, 'mail');
  writeEvidenceFolder(folder);
  engineArgs = [
    ...['--dns-server', dns.server, '--smtp-port', String(port), '--helo', 'probe.test', '--mail-from', 'probe@probe.test'],
    ...['--retry-schedule', 'none', '--connect-timeout', '3000', '--command-timeout', '3000', '--provider-rules', rules],
  ];
});

afterAll(async () => {
  await Promise.all([dns?.close(), ...smtp.map((server) => server.close())]);
});

/** A bulk job of `token`'s over every address, completed: each address's verdict and reason code. */
async function verdicts(service: RunningService, token: string, fresh = false): Promise<Record<string, string>> {
  const submitted = await call(service.baseUrl, 'POST', '/v1/bulk-verify', { token, json: { emails: ADDRESSES, ...(fresh ? { fresh } : {}) } });
  expect(submitted.status).toBe(200);
  const jobId = submitted.body.jobId as string;
  await pollProgress(service.baseUrl, jobId, token, (progress) => progress.status === 'completed');
  const results = (await call(service.baseUrl, 'GET', `/v1/bulk-verify/${jobId}`, { token })).body.results as {
    email: string;
    result: string;
    reasonCode: string;
    evidence?: unknown;
  }[];
  return Object.fromEntries(results.map((result) => [result.email, `${result.result}/${result.reasonCode}${result.evidence ? ' +evidence' : ''}`]));
}

const WITHOUT_EVIDENCE = {
  [at('gone', CATCH_ALL)]: 'catch_all/catch_all',
  [at('kept', CATCH_ALL)]: 'catch_all/catch_all',
  [at('other', CATCH_ALL)]: 'catch_all/catch_all',
  [at('gone', ACCEPT_ALL)]: 'unknown/accept_unproven',
  [at('kept', ACCEPT_ALL)]: 'unknown/accept_unproven',
  [at('other', ACCEPT_ALL)]: 'unknown/accept_unproven',
};

describe.each(STORE_KINDS)('evidence on the $name store', (kind) => {
  let place: StoreFixture;
  let service: RunningService;
  let ann: string;
  let bob: string;
  let cy: string;
  const cli = (token: string, args: string[]) =>
    runCli(args, { env: { MAILVERIFY_BASE_URL: service.baseUrl, MAILVERIFY_TOKEN: token, MAILVERIFY_CONFIG_DIR: testTempDir('cli-config') } });

  beforeAll(async () => {
    place = await kind.create();
    service = await startService({ engineArgs, databaseUrl: place.location.databaseUrl });
    ann = await service.createUser('ann@example.test', { credits: 100, rateLimit: 1_000 });
    bob = await service.createUser('bob@example.test', { credits: 100, rateLimit: 1_000 });
    cy = await service.createUser('cy@example.test', { credits: 100, rateLimit: 1_000 });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await place?.close();
  });

  it('imports a mixed folder with the CLI, saying what it read and skipped; the API takes the same events', { timeout: 60_000 }, async () => {
    const imported = await cli(ann, ['evidence', 'import', folder]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`${folder}: 5 read, 5 added, `);
    expect(imported.stdout).toMatch(/skipped .*notes\.txt file: not a format evidence is read from/);
    // Again: nothing is added twice.
    expect((await cli(ann, ['evidence', 'import', folder])).stdout).toContain(`${folder}: 5 read, 0 added, `);

    const listed = await cli(ann, ['--json', 'evidence', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ email, kind: what, verdict, source }) => [email, what, verdict, source])).toEqual([
      [at('gone', CATCH_ALL), 'bounce', 'invalid', 'dsn'],
      [at('gone', ACCEPT_ALL), 'bounce', 'invalid', 'dsn'],
      [at('kept', CATCH_ALL), 'delivery', 'valid', 'postfix'],
      [at('kept', ACCEPT_ALL), 'delivery', 'valid', 'ses'],
      [at('other', CATCH_ALL), 'bounce', null, 'dsn'],
    ]);

    // The same events, read here, through the API into another account: the same five.
    const { events } = await collect(readEvidencePath(folder));
    const posted = await call(service.baseUrl, 'POST', '/v1/evidence', { token: cy, json: { events } });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ read: 5, added: 5, skippedCount: 0 });
    const raw = await call(service.baseUrl, 'POST', '/v1/evidence?source=inbox', {
      token: cy,
      rawBody: readFileSync(join(folder, 'gone.eml')),
      headers: { 'content-type': 'message/rfc822' },
    });
    expect(raw.body).toMatchObject({ read: 1, added: 1, skippedCount: 0 });
    const one = await call(service.baseUrl, 'GET', `/v1/evidence?email=${encodeURIComponent(at('gone', CATCH_ALL).toUpperCase())}`, { token: cy });
    expect(one.body.decision).toMatchObject({ result: 'invalid', reasonCode: 'bounced', kind: 'bounce' });
    expect(one.body.events).toHaveLength(2);
    const tooMany = await call(service.baseUrl, 'POST', '/v1/evidence', { token: cy, json: { events: Array.from({ length: 10_001 }, () => events[0]) } });
    expect(tooMany.status).toBe(413);
    expect(await call(service.baseUrl, 'DELETE', '/v1/evidence', { token: cy })).toMatchObject({ status: 200, body: { deleted: 6 } });
  });

  it('decides a bulk job for exactly the addresses with evidence, for its own account only, until deleted', { timeout: 120_000 }, async () => {
    // Imported by the test above; again here (adding nothing twice) so that this test stands alone.
    expect((await cli(ann, ['evidence', 'import', folder])).code).toBe(0);
    expect(await verdicts(service, ann)).toEqual({
      ...WITHOUT_EVIDENCE,
      [at('gone', CATCH_ALL)]: 'invalid/bounced +evidence',
      [at('gone', ACCEPT_ALL)]: 'invalid/bounced +evidence',
      [at('kept', CATCH_ALL)]: 'valid/delivered +evidence',
      [at('kept', ACCEPT_ALL)]: 'valid/delivered +evidence',
    });
    // Another account's identical job: what the cache keeps is the probe's verdict, never ann's evidence.
    expect(await verdicts(service, bob)).toEqual(WITHOUT_EVIDENCE);

    const deleted = await call(service.baseUrl, 'DELETE', '/v1/evidence', { token: ann });
    expect(deleted.body).toEqual({ deleted: 5 });
    expect(await verdicts(service, ann, true)).toEqual(WITHOUT_EVIDENCE);
  });
});

describe('evidence on this machine', () => {
  it('imports into the local data dir, and verify --local reads it there, --explain listing what it saw', { timeout: 90_000 }, async () => {
    const env = { MAILVERIFY_LOCAL_DATA_DIR: testTempDir('evidence-local'), MAILVERIFY_CONFIG_DIR: testTempDir('cli-config'), MAILVERIFY_TOKEN: '' };
    const imported = await runCli(['evidence', 'import', folder, '--local'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`${folder}: 5 read, 5 added, `);

    const local = ['--local', '--allow-private-networks', ...engineArgs];
    const verified = await runCli(['--json', 'verify', at('gone', CATCH_ALL), at('kept', ACCEPT_ALL), at('other', ACCEPT_ALL), ...local], { env });
    const results = verified.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; result: string; reasonCode: string });
    expect(results.map(({ email, result, reasonCode }) => [email, result, reasonCode])).toEqual([
      [at('gone', CATCH_ALL), 'invalid', 'bounced'],
      [at('kept', ACCEPT_ALL), 'valid', 'delivered'],
      [at('other', ACCEPT_ALL), 'unknown', 'accept_unproven'],
    ]);
    const explained = await runCli(['verify', '--explain', at('other', CATCH_ALL), ...local], { env });
    expect(explained.stdout).toMatch(/evidence: bounce on 2026-11-20T11:05:00\.000Z \(dsn\): 5\.2\.2 .*\[soft: changes nothing\]/);
    // A window of 0 uses none.
    const without = await runCli(['--json', 'verify', at('gone', CATCH_ALL), '--evidence-window', '0', ...local], { env });
    expect(JSON.parse(without.stdout)).toMatchObject({ result: 'catch_all', reasonCode: 'catch_all' });
  });
});
