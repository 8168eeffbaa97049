/**
 * Proves the test fixtures behave as documented, with clients that share no code with the engine:
 * node's own DNS resolver and dns2's TCP client, and SMTP spoken over a raw socket.
 */
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TCPClient } from 'dns2';
import { startDnsServer } from '../support/dns-server.js';
import type { DnsFixture } from '../support/dns-server.js';
import { freePort, SessionCounter, startSmtpServer } from '../support/smtp-server.js';
import type { SmtpFixture, SmtpFixtureOptions } from '../support/smtp-server.js';
import { startHttpServer } from '../support/http-server.js';

describe('DNS fixture', () => {
  let dns: DnsFixture;
  const resolver = new Resolver({ timeout: 300, tries: 1 });

  beforeAll(async () => {
    dns = await startDnsServer({
      'mail.test': {
        records: [
          { type: 'MX', exchange: 'mx2.mail.test', priority: 20 },
          { type: 'MX', exchange: 'mx1.mail.test', priority: 10 },
          { type: 'A', address: '127.0.0.2' },
          { type: 'TXT', data: 'v=spf1 -all' },
        ],
      },
      'v6.test': { records: [{ type: 'AAAA', address: '::1' }] },
      'nullmx.test': { records: [{ type: 'MX', exchange: '', priority: 0 }] },
      'nodata.test': { records: [{ type: 'A', address: '127.0.0.3' }] },
      'servfail.test': { rcode: 'SERVFAIL' },
      'dropped.test': { drop: true },
      'slow.test': { records: [{ type: 'A', address: '127.0.0.4' }], delayMs: 600 },
      '2.0.0.127.zen.test': { records: [{ type: 'A', address: '127.0.0.2' }] },
    });
    resolver.setServers([dns.server]);
  });
  afterAll(() => dns.close());

  it('answers MX, A, AAAA and TXT records', async () => {
    const mx = await resolver.resolveMx('mail.test');
    expect(mx.sort((a, b) => a.priority - b.priority)).toEqual([
      { exchange: 'mx1.mail.test', priority: 10 },
      { exchange: 'mx2.mail.test', priority: 20 },
    ]);
    expect(await resolver.resolve4('MAIL.test')).toEqual(['127.0.0.2']);
    expect(await resolver.resolve6('v6.test')).toEqual(['::1']);
    expect(await resolver.resolveTxt('mail.test')).toEqual([['v=spf1 -all']]);
  });

  it('serves a null MX as "."', async () => {
    expect(await resolver.resolveMx('nullmx.test')).toEqual([{ exchange: '', priority: 0 }]);
  });

  it('answers NXDOMAIN for unknown names, NODATA for a missing type, SERVFAIL when told', async () => {
    await expect(resolver.resolveMx('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveMx('nodata.test')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolve4('servfail.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
  });

  it('never answers a dropped name, and answers a slow one only after its delay', async () => {
    await expect(resolver.resolve4('dropped.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await expect(resolver.resolve4('slow.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    const patient = new Resolver({ timeout: 5_000, tries: 1 });
    patient.setServers([dns.server]);
    expect(await patient.resolve4('slow.test')).toEqual(['127.0.0.4']);
  });

  it('serves a DNSBL zone: a listed address answers 127.0.0.2, an unlisted one NXDOMAIN', async () => {
    expect(await resolver.resolve4('2.0.0.127.zen.test')).toEqual(['127.0.0.2']);
    await expect(resolver.resolve4('3.0.0.127.zen.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('answers over TCP on the same port', async () => {
    const resolveTcp = TCPClient({ dns: dns.host, port: dns.port });
    const answer = await resolveTcp('mail.test', 'A');
    expect(answer.answers.map((record) => record.address)).toEqual(['127.0.0.2']);
  });

  it('counts queries per name and type, and changes behaviour with set()', async () => {
    dns.resetCounts();
    await resolver.resolveMx('mail.test');
    await resolver.resolveMx('mail.test');
    await resolver.resolve4('mail.test');
    expect(dns.queryCount('mail.test', 'MX')).toBe(2);
    expect(dns.queryCount('MAIL.TEST.', 'mx')).toBe(2);
    expect(dns.queryCount('mail.test')).toBe(3);
    expect(dns.queryCount()).toBe(3);

    dns.set('late.test', { records: [{ type: 'A', address: '127.0.0.9' }] });
    expect(await resolver.resolve4('late.test')).toEqual(['127.0.0.9']);
    dns.resetCounts();
    expect(dns.queryCount()).toBe(0);
  });
});

/** A minimal SMTP client over a raw socket: each call returns one whole (possibly multi-line) reply. */
class RawSmtp {
  private buffer = '';
  private waiting: ((reply: string | null) => void) | null = null;
  closed = false;

  private constructor(private socket: net.Socket) {
    this.listen();
  }

  static async connect(host: string, port: number): Promise<RawSmtp> {
    const socket = net.connect(port, host);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawSmtp(socket);
  }

  private listen(): void {
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.deliver();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.(null);
      this.waiting = null;
    });
    this.socket.on('error', () => undefined);
  }

  /** A reply is complete at a line whose fourth character is a space ("250 OK", not "250-SIZE"). */
  private deliver(): void {
    const lines = this.buffer.split('\r\n');
    const last = lines.findIndex((line) => /^\d{3}( |$)/.test(line));
    if (last < 0 || !this.waiting) return;
    const reply = lines.slice(0, last + 1).join('\n');
    this.buffer = lines.slice(last + 1).join('\r\n');
    const waiting = this.waiting;
    this.waiting = null;
    waiting(reply);
  }

  /** The next reply, or null when the server closed the connection or `timeoutMs` passed. */
  read(timeoutMs = 5_000): Promise<string | null> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(null);
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve(null);
      }, timeoutMs);
      this.waiting = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      this.deliver();
    });
  }

  command(line: string, timeoutMs?: number): Promise<string | null> {
    if (!this.closed) this.socket.write(`${line}\r\n`);
    return this.read(timeoutMs);
  }

  /** Hand the socket to TLS after STARTTLS; replies continue on the encrypted stream. */
  async startTls(): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('close');
    const secure = tls.connect({ socket: this.socket, rejectUnauthorized: false, servername: 'mx.fixture.test' });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    this.socket = secure;
    this.listen();
  }

  end(): void {
    this.socket.destroy();
  }
}

/** Greeting, EHLO and MAIL FROM done; the session is ready for RCPT TO. */
async function openTransaction(fixture: SmtpFixture): Promise<RawSmtp> {
  const smtp = await RawSmtp.connect(fixture.host, fixture.port);
  expect(await smtp.read()).toMatch(/^220 /);
  expect(await smtp.command('EHLO probe.test')).toMatch(/^250/);
  expect(await smtp.command('MAIL FROM:<verify@probe.test>')).toMatch(/^250/);
  return smtp;
}

describe('SMTP fixture', () => {
  const started: SmtpFixture[] = [];
  async function smtpServer(options: SmtpFixtureOptions): Promise<SmtpFixture> {
    const fixture = await startSmtpServer(options);
    started.push(fixture);
    return fixture;
  }
  afterAll(() => Promise.all(started.map((fixture) => fixture.close())));

  it('accepts its mailboxes and rejects others with Postfix 550 5.1.1, counting everything', async () => {
    const mx = await smtpServer({ host: '127.0.0.2', mailboxes: ['Alice@mail.test'] });
    const smtp = await RawSmtp.connect(mx.host, mx.port);
    expect(await smtp.read()).toBe('220 mx.fixture.test ESMTP');
    const ehlo = await smtp.command('EHLO probe.test');
    expect(ehlo).toMatch(/^250-mx.fixture.test/);
    expect(ehlo).toMatch(/^250[ -]SIZE 10485760$/m);
    expect(ehlo).toMatch(/^250[ -]ENHANCEDSTATUSCODES$/m);
    expect(ehlo).not.toContain('STARTTLS');
    expect(ehlo).not.toContain('AUTH');
    expect(await smtp.command('MAIL FROM:<verify@probe.test>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<alice@mail.test>')).toBe('250 2.1.5 Accepted');
    expect(await smtp.command('RCPT TO:<bob@mail.test>')).toBe('550 5.1.1 <bob@mail.test>: Recipient address rejected: User unknown');
    expect(await smtp.command('RSET')).toMatch(/^250 /);
    expect(await smtp.command('QUIT')).toMatch(/^221 /);
    smtp.end();

    expect(mx.sessionCount()).toBe(1);
    expect(mx.rcptCount()).toBe(2);
    expect(mx.rcptCount('ALICE@mail.test')).toBe(1);
    expect(mx.commands).toEqual(['EHLO probe.test', 'MAIL FROM:<verify@probe.test>', 'RCPT TO:<alice@mail.test>', 'RCPT TO:<bob@mail.test>', 'RSET', 'QUIT']);
    mx.reset();
    expect([mx.sessionCount(), mx.rcptCount(), mx.commands.length]).toEqual([0, 0, 0]);
  });

  it('accepts every recipient when catch-all', async () => {
    const mx = await smtpServer({ catchAll: true });
    const smtp = await openTransaction(mx);
    expect(await smtp.command('RCPT TO:<x7f3q9@catchall.test>')).toMatch(/^250 /);
    smtp.end();
  });

  it('greylists the first RCPTs of an address, then applies the mailbox rules', async () => {
    const mx = await smtpServer({ mailboxes: ['grey@mail.test', 'white@mail.test'], greylist: { times: 1, addresses: ['grey@mail.test'] } });
    const smtp = await openTransaction(mx);
    expect(await smtp.command('RCPT TO:<grey@mail.test>')).toBe(
      '450 4.2.0 <grey@mail.test>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/mail.test.html',
    );
    expect(await smtp.command('RCPT TO:<white@mail.test>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<grey@mail.test>')).toMatch(/^250 /);
    smtp.end();
  });

  it('rejects RCPTs with the Spamhaus 5.7.1 block, or the whole session at the greeting', async () => {
    const blocking = await smtpServer({ block: true, catchAll: true });
    const smtp = await openTransaction(blocking);
    expect(await smtp.command('RCPT TO:<a@mail.test>')).toBe('554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org');
    smtp.end();

    const atGreeting = await smtpServer({ blockGreeting: true });
    const refused = await RawSmtp.connect(atGreeting.host, atGreeting.port);
    expect(await refused.read()).toMatch(/^554 5\.7\.1 Service unavailable; Client host \[127\.0\.0\.1\] blocked/);
    expect(await refused.read()).toBeNull();
    expect(refused.closed).toBe(true);
  });

  it('delays every reply by replyDelayMs', async () => {
    const mx = await smtpServer({ replyDelayMs: 500, catchAll: true });
    const smtp = await RawSmtp.connect(mx.host, mx.port);
    // A client with a budget well under the delay sees nothing; a patient one gets each reply.
    expect(await smtp.read(100)).toBeNull();
    expect(await smtp.read()).toMatch(/^220 /);
    expect(await smtp.command('EHLO probe.test', 100)).toBeNull();
    expect(await smtp.read()).toMatch(/^250/);
    smtp.end();
  });

  it('closes the connection after dropAfterRcpts answered RCPTs', async () => {
    const mx = await smtpServer({ dropAfterRcpts: 2, catchAll: true });
    const smtp = await openTransaction(mx);
    expect(await smtp.command('RCPT TO:<a@mail.test>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<b@mail.test>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<c@mail.test>')).toBeNull();
    expect(smtp.closed).toBe(true);
  });

  it('answers 452 4.5.3 beyond maxRcptsPerSession', async () => {
    const mx = await smtpServer({ maxRcptsPerSession: 2, catchAll: true });
    const smtp = await openTransaction(mx);
    await smtp.command('RCPT TO:<a@mail.test>');
    await smtp.command('RCPT TO:<b@mail.test>');
    expect(await smtp.command('RCPT TO:<c@mail.test>')).toMatch(/^452 4\.5\.3 /);
    expect(mx.rcptCount()).toBe(3);
    smtp.end();
  });

  it('refuses connections, or closes them before any greeting', async () => {
    const refusing = await smtpServer({ host: '127.0.0.2', refuse: true });
    await expect(RawSmtp.connect(refusing.host, refusing.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const closing = await smtpServer({ closeOnConnect: true });
    const smtp = await RawSmtp.connect(closing.host, closing.port);
    expect(await smtp.read()).toBeNull();
    expect(closing.sessionCount()).toBe(1);
  });

  it('offers STARTTLS when asked and carries on over TLS', async () => {
    const mx = await smtpServer({ starttls: true, mailboxes: ['alice@mail.test'] });
    const smtp = await RawSmtp.connect(mx.host, mx.port);
    await smtp.read();
    expect(await smtp.command('EHLO probe.test')).toContain('250-STARTTLS');
    expect(await smtp.command('STARTTLS')).toMatch(/^220 /);
    await smtp.startTls();
    expect(await smtp.command('EHLO probe.test')).not.toContain('STARTTLS');
    await smtp.command('MAIL FROM:<verify@probe.test>');
    expect(await smtp.command('RCPT TO:<alice@mail.test>')).toMatch(/^250 /);
    smtp.end();
  });

  it('counts sessions in conversation at once, from the first command to QUIT or hang-up, across fixtures sharing a counter', async () => {
    const sessions = new SessionCounter();
    const [first, second] = await Promise.all([smtpServer({ host: '127.0.0.5', sessions }), smtpServer({ host: '127.0.0.6', sessions })]);
    const idle = await RawSmtp.connect(first!.host, first!.port); // connected, but never says a word
    const one = await openTransaction(first!);
    const two = await openTransaction(second!);
    expect([first!.peakSessions(), second!.peakSessions()]).toEqual([2, 2]);
    await one.command('QUIT');
    two.end();
    // Its first command reaches the server after the hang-up of `two`, which was sent earlier.
    const three = await openTransaction(second!);
    first!.reset(); // the peak starts again from the sessions in conversation now: only `three`
    expect(second!.peakSessions()).toBe(1);
    for (const smtp of [idle, one, three]) smtp.end();
  });

  it('puts several hosts on one shared port from freePort', async () => {
    const hosts = ['127.0.0.3', '127.0.0.4'];
    const port = await freePort(hosts);
    const [first, second] = await Promise.all(hosts.map((host, i) => smtpServer({ host, port, name: `mx${i + 1}.fixture.test` })));
    for (const [fixture, name] of [
      [first, 'mx1'],
      [second, 'mx2'],
    ] as const) {
      const smtp = await RawSmtp.connect(fixture!.host, port);
      expect(await smtp.read()).toBe(`220 ${name}.fixture.test ESMTP`);
      smtp.end();
    }
  });
});

describe('HTTP fixture', () => {
  it('answers 200 to anything and counts requests', async () => {
    const web = await startHttpServer({ host: '127.0.0.2' });
    try {
      const response = await fetch(`http://${web.host}:${web.port}/any/path`, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(web.requestCount()).toBe(1);
    } finally {
      await web.close();
    }
  });
});
