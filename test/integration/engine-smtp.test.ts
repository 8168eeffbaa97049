// The SMTP conversation against real servers on loopback: greylisting, MX fallback, timeouts,
// STARTTLS, dropped connections, recipient limits, private networks, old servers.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type EngineOptions, type VerificationResult } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, startSmtpServer, type SmtpFixture, type SmtpFixtureOptions } from '../support/smtp-server.js';
import { fixtureOptions, mxZones } from '../support/engine-fixtures.js';

const HOSTS = {
  greylist: '127.0.0.111',
  refusing: '127.0.0.112',
  second: '127.0.0.113',
  slow: '127.0.0.114',
  tls: '127.0.0.115',
  dropping: '127.0.0.116',
  limited: '127.0.0.117',
  hangingUp: '127.0.0.118',
  old: '127.0.0.119',
};
const SLOW_REPLY_MS = 3_000;
const TIMEOUT_MS = 300;

let dns: DnsFixture;
let port: number;
let oldServer: net.Server;
const fixtures: Record<string, SmtpFixture> = {};

async function start(name: keyof typeof HOSTS, behaviour: Omit<SmtpFixtureOptions, 'host' | 'port'>): Promise<void> {
  fixtures[name] = await startSmtpServer({ host: HOSTS[name], port, ...behaviour });
}

/**
 * An SMTP server from before EHLO (it answers 502 to it), with Gmail-style multi-line replies:
 * the engine must fall back to HELO and read every line of a reply.
 */
function startOldServer(host: string): Promise<net.Server> {
  const replies: [RegExp, string][] = [
    [/^EHLO/i, '502 5.5.2 Error: command not recognized'],
    [/^HELO/i, '250 old.fixture.test'],
    [/^MAIL/i, '250 2.1.0 Ok'],
    [/^RCPT TO:<here@/i, '250-2.1.5 Ok,\r\n250 2.1.5 I know this one'],
    [
      /^RCPT/i,
      '550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n' +
        "550-5.1.1 double-checking the recipient's email address for typos or\r\n" +
        '550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser',
    ],
    [/^QUIT/i, '221 2.0.0 Bye'],
  ];
  const server = net.createServer((socket) => {
    socket.write('220-old.fixture.test ESMTP\r\n220 greetings in two lines\r\n');
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const reply = replies.find(([pattern]) => pattern.test(line))?.[1] ?? '500 5.5.1 what?';
        socket.write(`${reply}\r\n`);
        if (/^QUIT/i.test(line)) socket.end();
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

beforeAll(async () => {
  port = await freePort(Object.values(HOSTS));
  await start('greylist', { greylist: { times: 1 }, mailboxes: ['grey@greylist.test'] });
  await start('refusing', { refuse: true });
  await start('second', { mailboxes: ['here@fallback.test', 'here@hangup.test'] });
  await start('slow', { replyDelayMs: SLOW_REPLY_MS, mailboxes: ['late@slow.test'] });
  await start('tls', { starttls: true, mailboxes: ['secret@tls.test'] });
  await start('dropping', { dropAfterRcpts: 3, mailboxes: ['a@drop.test', 'b@drop.test', 'c@drop.test', 'd@drop.test', 'e@drop.test'] });
  await start('limited', { maxRcptsPerSession: 5, catchAll: false, mailboxes: Array.from({ length: 12 }, (_, i) => `user${i}@limited.test`) });
  await start('hangingUp', { closeOnConnect: true });
  oldServer = await startOldServer(HOSTS.old);
  dns = await startDnsServer({
    ...mxZones('greylist.test', { 'mx.greylist.test': HOSTS.greylist }),
    ...mxZones('fallback.test', { 'mx1.fallback.test': HOSTS.refusing, 'mx2.fallback.test': HOSTS.second }),
    ...mxZones('hangup.test', { 'mx1.hangup.test': HOSTS.hangingUp, 'mx2.hangup.test': HOSTS.second }),
    ...mxZones('slow.test', { 'mx.slow.test': HOSTS.slow }),
    ...mxZones('tls.test', { 'mx.tls.test': HOSTS.tls }),
    ...mxZones('drop.test', { 'mx.drop.test': HOSTS.dropping }),
    ...mxZones('limited.test', { 'mx.limited.test': HOSTS.limited }),
    ...mxZones('old.test', { 'mx.old.test': HOSTS.old }),
  });
});

afterAll(async () => {
  await Promise.all(Object.values(fixtures).map((fixture) => fixture.close()));
  await new Promise((resolve) => oldServer?.close(resolve));
  await dns?.close();
});

function verify(email: string, overrides: Partial<EngineOptions> = {}): Promise<VerificationResult> {
  return createVerifier(fixtureOptions(dns, port, overrides)).verify(email);
}

async function verifyAll(emails: string[], overrides: Partial<EngineOptions> = {}): Promise<Map<string, VerificationResult>> {
  const results = new Map<string, VerificationResult>();
  await createVerifier(fixtureOptions(dns, port, overrides)).verifyMany(emails, (result) => {
    results.set(result.email, result);
  });
  return results;
}

describe('SMTP probing', () => {
  it('asks a greylisted address again after the delay, and then finds it valid', async () => {
    fixtures.greylist!.reset();
    const result = await verify('grey@greylist.test', { greylistRetryMs: 200, greylistBudgetMs: 5_000 });
    expect(result.result).toBe('valid');
    expect(fixtures.greylist!.rcptCount('grey@greylist.test')).toBe(2);
  });

  it('with retries off, leaves a greylisted address unknown with the 450 reply', async () => {
    fixtures.greylist!.reset();
    const result = await verify('grey@greylist.test', { greylistRetryMs: 0 });
    expect(result.result).toBe('unknown');
    expect(result.reason).toBe(
      'greylisted: 450 4.2.0 <grey@greylist.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/greylist.test.html',
    );
    expect(fixtures.greylist!.rcptCount('grey@greylist.test')).toBe(1);
  });

  it('gives up on greylisting when the budget would be exceeded', async () => {
    fixtures.greylist!.reset();
    const result = await verify('grey@greylist.test', { greylistRetryMs: 400, greylistBudgetMs: 300 });
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/^greylisted: 450 4\.2\.0/);
  });

  it('goes to the second MX when the first refuses the connection', async () => {
    const result = await verify('here@fallback.test');
    expect(result.result).toBe('valid');
  });

  it('goes to the second MX when the first hangs up before the greeting', async () => {
    const result = await verify('here@hangup.test');
    expect(result.result).toBe('valid');
    expect(fixtures.hangingUp!.sessionCount()).toBeGreaterThan(0);
  });

  it('leaves an address at a server slower than the command timeout unknown, within the budget', async () => {
    const started = Date.now();
    const result = await verify('late@slow.test', { connectTimeoutMs: TIMEOUT_MS, commandTimeoutMs: TIMEOUT_MS });
    const elapsed = Date.now() - started;
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/^timeout: mx\.slow\.test \(127\.0\.0\.114\): no reply within 300 ms/);
    // One connect and one command timeout, with generous slack for a loaded machine.
    expect(elapsed).toBeLessThan(SLOW_REPLY_MS);
  });

  it('contacts no mail host on a private network unless allowed, and says so', async () => {
    const slow = fixtures.slow!;
    slow.reset();
    const result = await verify('late@slow.test', { allowPrivateNetworks: false });
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/private network.*127\.0\.0\.114.*allowPrivateNetworks is off/);
    expect(slow.sessionCount()).toBe(0);
  });

  it('upgrades to TLS when the server offers STARTTLS (self-signed certificate accepted)', async () => {
    const result = await verify('secret@tls.test');
    expect(result.result).toBe('valid');
    expect(fixtures.tls!.commands).toContain('STARTTLS');
  });

  it('announces the configured HELO name and envelope sender, never the target', async () => {
    const tls = fixtures.tls!;
    tls.reset();
    await verify('secret@tls.test', { heloName: 'helo.mailverify.test', mailFrom: 'bounce@mailverify.test' });
    expect(tls.commands).toContain('EHLO helo.mailverify.test');
    expect(tls.commands.some((command) => command.startsWith('MAIL FROM:<bounce@mailverify.test>'))).toBe(true);
  });

  it('reconnects when the server drops the connection mid-list, and answers every address', async () => {
    const emails = ['a', 'b', 'c', 'd', 'e', 'x', 'y'].map((local) => `${local}@drop.test`);
    // One session at a time, so the drops land the same way on every run.
    const results = await verifyAll(emails, { perHostConcurrency: 1 });
    expect(results.size).toBe(emails.length);
    for (const email of emails) expect(results.get(email)!.result, email).toBe(/^[a-e]@/.test(email) ? 'valid' : 'invalid');
    expect(fixtures.dropping!.sessionCount()).toBeGreaterThan(1);
  });

  it('starts a new transaction when the server caps recipients, in the same session', async () => {
    const limited = fixtures.limited!;
    limited.reset();
    const emails = Array.from({ length: 12 }, (_, i) => `user${i}@limited.test`);
    const results = await verifyAll(emails, { perHostConcurrency: 1 });
    expect([...results.values()].every((result) => result.result === 'valid')).toBe(true);
    expect(limited.commands).toContain('RSET');
    expect(limited.sessionCount()).toBe(1);
  });

  it('falls back to HELO when EHLO is refused, and reads multi-line replies whole', async () => {
    const results = await verifyAll(['here@old.test', 'gone@old.test']);
    expect(results.get('here@old.test')).toMatchObject({ result: 'valid', reason: '250 2.1.5 Ok, I know this one' });
    expect(results.get('gone@old.test')).toMatchObject({
      result: 'invalid',
      reason:
        "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
    });
  });
});
