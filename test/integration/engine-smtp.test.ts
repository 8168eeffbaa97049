// The SMTP conversation against real servers on loopback: greylisting, MX order and fallback,
// timeouts, STARTTLS, dropped connections, recipient limits, session limits, private networks,
// old servers.
import net from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type EngineOptions, type VerificationResult } from '../../src/engine/index.js';
import { startDnsServer, type DnsFixture } from '../support/dns-server.js';
import { freePort, SessionCounter, startSmtpServer, type SmtpFixture, type SmtpFixtureOptions } from '../support/smtp-server.js';
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
  stalling: '127.0.0.108',
  primary: '127.0.0.109',
  busy: '127.0.0.120',
  /** Refuses, blocks or hangs up on chosen addresses, for counting RCPTs per address. */
  strict: '127.0.12.120',
  /** The one address behind 400 MX records; it hangs up on every connection. */
  shared: '127.0.12.121',
  /** Refuses every RCPT as a DNSBL-listed client. */
  blocking: '127.0.12.122',
  /** Takes one recipient per transaction. */
  single: '127.0.12.123',
  /** Cuts every session at its first RCPT, without a word. */
  cutting: '127.0.12.124',
};
const SLOW_REPLY_MS = 3_000;
const TIMEOUT_MS = 300;
/** Each reply a little late, so sessions last long enough to overlap when nothing stops them. */
const BUSY_REPLY_MS = 10;
/** Four domains, each at a host of its own, for the global session limit. */
const MANY = [0, 1, 2, 3].map((i) => ({ domain: `many${i}.test`, host: `127.0.0.${131 + i}` }));
/** Eight addresses that hang up on every connection, behind a domain's 400 MX records. */
const HANGING_UP = Array.from({ length: 8 }, (_, i) => `127.0.12.${110 + i}`);
const MX_RECORDS = 400;
/** dns2 takes about half a second to encode an answer of 400 MX records, on an idle machine. */
const LARGE_ANSWER_DNS_TIMEOUT_MS = 10_000;

/** `count` MX records for `domain` (preference 10, 20, ...), host i at `addresses[i % addresses.length]`. */
function manyMxZones(domain: string, count: number, addresses: string[]): ReturnType<typeof mxZones> {
  return mxZones(domain, Object.fromEntries(Array.from({ length: count }, (_, i) => [`mx${i}.${domain}`, addresses[i % addresses.length]!])));
}

let dns: DnsFixture;
let port: number;
const scriptedServers: net.Server[] = [];
const fixtures: Record<string, SmtpFixture> = {};
/** The sessions of the `MANY` hosts, counted together. */
const manySessions = new SessionCounter();

async function start(name: keyof typeof HOSTS, behaviour: Omit<SmtpFixtureOptions, 'host' | 'port'>): Promise<void> {
  fixtures[name] = await startSmtpServer({ host: HOSTS[name], port, ...behaviour });
}

/**
 * A hand-written SMTP server for what smtp-server will not do: it greets with `greeting` and
 * answers each command with the reply of the first pattern it matches, or never when that reply
 * is null. Replies may span several lines.
 */
async function startScriptedServer(host: string, greeting: string, replies: [RegExp, string | null][]): Promise<void> {
  const server = net.createServer((socket) => {
    socket.write(`${greeting}\r\n`);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf('\r\n'); end !== -1; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const reply = replies.find(([pattern]) => pattern.test(line))?.[1];
        if (reply === null) continue;
        socket.write(`${reply ?? '500 5.5.1 what?'}\r\n`);
        if (/^QUIT/i.test(line)) socket.end();
      }
    });
    socket.on('error', () => undefined);
  });
  scriptedServers.push(server);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
}

/**
 * An SMTP server from before EHLO (it answers 502 to it), with Gmail-style multi-line replies:
 * the engine must fall back to HELO and read every line of a reply.
 */
function startOldServer(): Promise<void> {
  return startScriptedServer(HOSTS.old, '220-old.fixture.test ESMTP\r\n220 greetings in two lines', [
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
  ]);
}

/** A server that greets and opens the transaction at once, then never answers RCPT TO. */
function startStallingServer(): Promise<void> {
  return startScriptedServer(HOSTS.stalling, '220 stalling.fixture.test ESMTP', [
    [/^EHLO/i, '250 stalling.fixture.test'],
    [/^MAIL/i, '250 2.1.0 Ok'],
    [/^RCPT/i, null],
    [/^QUIT/i, '221 2.0.0 Bye'],
  ]);
}

beforeAll(async () => {
  port = await freePort([...Object.values(HOSTS), ...MANY.map(({ host }) => host), ...HANGING_UP]);
  await start('greylist', { greylist: { times: 1 }, mailboxes: ['grey@greylist.test'] });
  await start('refusing', { refuse: true });
  await start('second', { mailboxes: ['here@fallback.test', 'here@hangup.test', 'here@cut-first.test'] });
  await start('slow', { replyDelayMs: SLOW_REPLY_MS, mailboxes: ['late@slow.test'] });
  await start('tls', { starttls: true, mailboxes: ['secret@tls.test'] });
  await start('dropping', { dropAfterRcpts: 3, mailboxes: ['a@drop.test', 'b@drop.test', 'c@drop.test', 'd@drop.test', 'e@drop.test'] });
  await start('limited', { maxRcptsPerSession: 5, catchAll: false, mailboxes: Array.from({ length: 12 }, (_, i) => `user${i}@limited.test`) });
  await start('hangingUp', { closeOnConnect: true });
  await start('primary', { mailboxes: ['here@order.test'] });
  await start('busy', { replyDelayMs: BUSY_REPLY_MS, mailboxes: ['a@busy0.test', 'a@busy1.test', 'a@busy2.test'] });
  for (const { domain, host } of MANY) {
    fixtures[domain] = await startSmtpServer({ host, port, replyDelayMs: BUSY_REPLY_MS, sessions: manySessions, mailboxes: [`a@${domain}`] });
  }
  await start('strict', { mailboxes: ['here@strict.test'], closeSessionAt: ['closing@strict.test'] });
  await start('shared', { closeOnConnect: true });
  await start('blocking', { block: true });
  await start('cutting', { dropAtRcpt: true });
  await start('single', { maxRcptsPerSession: 1, mailboxes: Array.from({ length: 8 }, (_, i) => `user${i}@single.test`) });
  for (const host of HANGING_UP) fixtures[host] = await startSmtpServer({ host, port, closeOnConnect: true });
  await startOldServer();
  await startStallingServer();
  dns = await startDnsServer({
    ...mxZones('greylist.test', { 'mx.greylist.test': HOSTS.greylist }),
    ...mxZones('fallback.test', { 'mx1.fallback.test': HOSTS.refusing, 'mx2.fallback.test': HOSTS.second }),
    ...mxZones('hangup.test', { 'mx1.hangup.test': HOSTS.hangingUp, 'mx2.hangup.test': HOSTS.second }),
    ...mxZones('slow.test', { 'mx.slow.test': HOSTS.slow }),
    ...mxZones('tls.test', { 'mx.tls.test': HOSTS.tls }),
    ...mxZones('drop.test', { 'mx.drop.test': HOSTS.dropping }),
    ...mxZones('limited.test', { 'mx.limited.test': HOSTS.limited }),
    ...mxZones('old.test', { 'mx.old.test': HOSTS.old }),
    ...mxZones('stalling.test', { 'mx.stalling.test': HOSTS.stalling }),
    // The backup first in the answer: the engine must sort by preference, not take DNS's order.
    'order.test': {
      records: [
        { type: 'MX', exchange: 'backup.order.test', priority: 20 },
        { type: 'MX', exchange: 'primary.order.test', priority: 10 },
      ],
    },
    'backup.order.test': { records: [{ type: 'A', address: HOSTS.second }] },
    'primary.order.test': { records: [{ type: 'A', address: HOSTS.primary }] },
    ...Object.assign({}, ...[0, 1, 2].map((i) => mxZones(`busy${i}.test`, { [`mx.busy${i}.test`]: HOSTS.busy }))),
    ...Object.assign({}, ...MANY.map(({ domain, host }) => mxZones(domain, { [`mx.${domain}`]: host }))),
    ...mxZones('strict.test', { 'mx.strict.test': HOSTS.strict }),
    ...mxZones('blocking.test', { 'mx.blocking.test': HOSTS.blocking }),
    ...mxZones('single.test', { 'mx.single.test': HOSTS.single }),
    ...mxZones('cut.test', { 'mx.cut.test': HOSTS.cutting }),
    ...mxZones('cut-first.test', { 'mx1.cut-first.test': HOSTS.cutting, 'mx2.cut-first.test': HOSTS.second }),
    ...manyMxZones('shared.test', MX_RECORDS, [HOSTS.shared]),
    ...manyMxZones('hangup-many.test', MX_RECORDS, HANGING_UP),
  });
});

afterAll(async () => {
  await Promise.all(Object.values(fixtures).map((fixture) => fixture.close()));
  for (const server of scriptedServers) server.close();
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
  it('answers a greylisted address at once, unknown with the 450 reply, after one RCPT (the runner asks again later)', async () => {
    fixtures.greylist!.reset();
    const result = await verify('grey@greylist.test');
    expect(result).toMatchObject({ result: 'unknown', reasonCode: 'greylisted' });
    expect(result.reason).toBe(
      'greylisted: 450 4.2.0 <grey@greylist.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/greylist.test.html',
    );
    expect(fixtures.greylist!.rcptCount('grey@greylist.test')).toBe(1);
  });

  it('asks the MX hosts in preference order, whatever order DNS gives them in', async () => {
    const result = await verify('here@order.test');
    // The backup does not know this mailbox: asking it first would make the address invalid.
    expect(result).toMatchObject({ result: 'valid', reason: expect.stringMatching(/^accepted by the recipient's server: 250 /) });
    expect(fixtures.primary!.sessionCount()).toBe(1);
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

  it.each([
    ['answers slower than the command timeout (the greeting comes too late)', 'late@slow.test', 'mx.slow.test', HOSTS.slow],
    // Given up after its first silent RCPT (the catch-all probe), not asked again for the address.
    ['stops answering at RCPT TO', 'someone@stalling.test', 'mx.stalling.test', HOSTS.stalling],
  ])('leaves an address unknown when the server %s, within the budget', async (_case, email, host, address) => {
    const started = Date.now();
    const result = await verify(email, { connectTimeoutMs: TIMEOUT_MS, commandTimeoutMs: TIMEOUT_MS });
    const elapsed = Date.now() - started;
    expect(result.result).toBe('unknown');
    expect(result.reason).toBe(`timeout: ${host} (${address}): no reply within ${TIMEOUT_MS} ms`);
    // One command timeout, with generous slack for a loaded machine; far below what the server would take.
    expect(elapsed).toBeLessThan(10 * TIMEOUT_MS);
  });

  it('contacts no mail host on a private network unless allowed, and says so', async () => {
    const slow = fixtures.slow!;
    slow.reset();
    const result = await verify('late@slow.test', { allowPrivateNetworks: false });
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/private network.*127\.0\.0\.114.*not allowed \(--allow-private-networks\)/);
    expect(slow.sessionCount()).toBe(0);
  });

  it('upgrades to TLS when the server offers STARTTLS (self-signed certificate accepted)', async () => {
    const tls = fixtures.tls!;
    tls.reset();
    const result = await verify('secret@tls.test');
    expect(result.result).toBe('valid');
    // One session: a failed handshake would have been followed by a second one in plain text.
    expect(tls.sessionCount()).toBe(1);
    const conversation = tls.commands.filter((command) => command !== 'QUIT'); // the last test's QUIT may come in late
    expect(conversation.slice(0, 3)).toEqual(['EHLO probe.mailverify.test', 'STARTTLS', 'EHLO probe.mailverify.test']);
  });

  it('announces the configured HELO name and envelope sender, never the target', async () => {
    const tls = fixtures.tls!;
    tls.reset();
    await verify('secret@tls.test', { heloName: 'helo.mailverify.test', mailFrom: 'bounce@mailverify.test' });
    expect(tls.commands).toContain('EHLO helo.mailverify.test');
    expect(tls.commands.some((command) => command.startsWith('MAIL FROM:<bounce@mailverify.test>'))).toBe(true);
  });

  it('by default announces this host and an address at it, nothing of the target', async () => {
    const tls = fixtures.tls!;
    tls.reset();
    await verify('secret@tls.test', { heloName: undefined, mailFrom: undefined });
    const ours = hostname() || 'localhost';
    expect(tls.commands).toContain(`EHLO ${ours}`);
    const mailFrom = tls.commands.find((command) => command.startsWith('MAIL FROM:'));
    expect(mailFrom).toMatch(new RegExp(`^MAIL FROM:<verify@${ours.replace(/\./g, '\\.')}>`));
    expect(tls.commands.filter((command) => /^(EHLO|HELO|MAIL)/.test(command)).join(' ')).not.toMatch(/tls\.test/);
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
    expect([...results.keys()].sort()).toEqual([...emails].sort());
    expect([...results.values()].filter((result) => result.result !== 'valid')).toEqual([]);
    expect(limited.commands).toContain('RSET');
    expect(limited.sessionCount()).toBe(1);
  });

  it('keeps to perHostConcurrency at a host that several domains share', async () => {
    const busy = fixtures.busy!;
    const emails = [0, 1, 2].flatMap((i) => ['a', 'b', 'c'].map((local) => `${local}@busy${i}.test`));
    busy.reset();
    const limited = await verifyAll(emails, { perHostConcurrency: 1 });
    expect(emails.map((email) => limited.get(email)?.result)).toEqual(emails.map((email) => (email.startsWith('a@') ? 'valid' : 'invalid')));
    expect(busy.peakSessions()).toBe(1);
    // The same list with room for three: the counter does see sessions overlap.
    busy.reset();
    await verifyAll(emails, { perHostConcurrency: 3 });
    expect(busy.peakSessions()).toBeGreaterThan(1);
  });

  it('keeps to the global concurrency across hosts', async () => {
    manySessions.reset();
    const results = await verifyAll(
      MANY.flatMap(({ domain }) => [`a@${domain}`, `b@${domain}`]),
      { concurrency: 2 },
    );
    expect(results.size).toBe(2 * MANY.length);
    expect(manySessions.peak).toBeLessThanOrEqual(2);
  });

  it('falls back to HELO when EHLO is refused, and reads multi-line replies whole', async () => {
    const results = await verifyAll(['here@old.test', 'gone@old.test']);
    expect(results.get('here@old.test')).toMatchObject({ result: 'valid', reason: "accepted by the recipient's server: 250 2.1.5 Ok, I know this one" });
    expect(results.get('gone@old.test')).toMatchObject({
      result: 'invalid',
      reason:
        "mailbox does not exist: 550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
    });
  });
});

describe('politeness and economy', () => {
  const hangUps = (): number => HANGING_UP.reduce((sum, host) => sum + fixtures[host]!.sessionCount(), 0);

  it(`tries at most 5 of ${MX_RECORDS} MX hosts: distinct addresses, the most preferred first`, async () => {
    for (const host of HANGING_UP) fixtures[host]!.reset();
    const result = await verify('someone@hangup-many.test', { dnsTimeoutMs: LARGE_ANSWER_DNS_TIMEOUT_MS });
    expect(result.result).toBe('unknown');
    expect(hangUps()).toBe(5);
    // mx0…mx4 are the most preferred, each on an address of its own; none was tried twice.
    expect(HANGING_UP.map((host) => fixtures[host]!.sessionCount())).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);
  });

  it(`connects once to a domain whose ${MX_RECORDS} MX records share one address that hangs up`, async () => {
    const shared = fixtures.shared!;
    shared.reset();
    const result = await verify('someone@shared.test', { dnsTimeoutMs: LARGE_ANSWER_DNS_TIMEOUT_MS });
    expect(result).toMatchObject({ result: 'unknown', reason: expect.stringMatching(/^connection lost: mx0\.shared\.test \(127\.0\.12\.121\)/) });
    expect(shared.sessionCount()).toBe(1);
  });

  it.each([
    ['refused as unknown (550 5.1.1)', 'gone@strict.test', 'invalid', /^mailbox does not exist: 550 5\.1\.1 /],
    ['refused with 421, the session closed', 'closing@strict.test', 'unknown', /421 4\.7\.0 Try again later/],
    ['refused because we are blocked (554 5.7.1)', 'someone@blocking.test', 'unknown', /554 5\.7\.1 .*spamhaus/],
  ])('asks an address %s with one RCPT', async (_case, email, verdict, reason) => {
    const fixture = email.endsWith('@strict.test') ? fixtures.strict! : fixtures.blocking!;
    fixture.reset();
    const result = await verify(email);
    expect(result.result).toBe(verdict);
    expect(result.reason).toMatch(reason);
    expect(fixture.rcptCount(email)).toBe(1);
  });

  it('learns how many recipients a transaction takes, instead of asking addresses twice at every transaction', async () => {
    const single = fixtures.single!;
    single.reset();
    const emails = Array.from({ length: 8 }, (_, i) => `user${i}@single.test`);
    const results = await verifyAll(emails, { perHostConcurrency: 1 });
    expect(emails.map((email) => results.get(email)?.result)).toEqual(emails.map(() => 'valid'));
    // The catch-all probe, each address once, and at most two addresses again while the limit is learnt.
    expect(single.rcptCount()).toBeLessThanOrEqual(1 + emails.length + 2);
    expect(single.sessionCount()).toBe(1);
  });

  it('treats a host that cuts every session before answering like one that refuses connections', async () => {
    const cutting = fixtures.cutting!;
    cutting.reset();
    const result = await verify('someone@cut.test');
    expect(result.result).toBe('unknown');
    expect(result.reason).toMatch(/connection lost: mx\.cut\.test \(127\.0\.12\.124\)/);
    // Not a session per address and attempt: the catch-all probe's cut session was the only one.
    expect(cutting.sessionCount()).toBe(1);

    cutting.reset();
    expect((await verify('here@cut-first.test')).result).toBe('valid');
    expect(cutting.sessionCount()).toBe(1);
  });
});
