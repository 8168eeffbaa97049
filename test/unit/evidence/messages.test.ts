// Bounce messages read by content: RFC 3464 reports, plain-text bounces in any transfer encoding,
// delivery reports, delay warnings, and the auto-replies that are no bounce.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { meaningOf } from '../../../src/engine/evidence/meaning.js';
import { evidenceFixture, readFixture, readText } from '../../support/evidence.js';

describe('reading one message', () => {
  it('reads every recipient block of a DSN, with its status and the server words', async () => {
    const { events, skips } = await readFixture('dsn-user-unknown.eml');
    expect(skips).toEqual([]);
    expect(events).toEqual([
      {
        email: 'No.Such@example.com',
        kind: 'bounce',
        at: '2026-11-20T11:00:00.000Z',
        status: '5.1.1',
        diagnostic: 'smtp; 550 5.1.1 <No.Such@example.com>: Recipient address rejected: User unknown',
        source: 'dsn',
      },
      { email: 'full@example.net', kind: 'bounce', at: '2026-11-20T11:00:00.000Z', status: '5.2.2', diagnostic: 'smtp; 552 5.2.2 Mailbox full', source: 'dsn' },
    ]);
    expect(events.map(meaningOf)).toEqual(['missing-mailbox', 'soft']);
  });

  it('reads a delivery report as a delivery and a delay warning as a deferral', async () => {
    const delivered = await readFixture('dsn-delivered.eml');
    expect(delivered.events).toMatchObject([{ email: 'reader@example.org', kind: 'delivery', status: '2.0.0' }]);
    expect(meaningOf(delivered.events[0]!)).toBe('delivered');
    const delayed = await readFixture('dsn-delayed.eml');
    expect(delayed.events).toMatchObject([{ email: 'slow@example.net', kind: 'deferral', status: '4.4.1' }]);
    expect(meaningOf(delayed.events[0]!)).toBe('soft');
  });

  it('reads a plain-text bounce sent in base64 with CRLF line ends (qmail)', async () => {
    const { events } = await readFixture('qmail-base64.eml');
    expect(events).toEqual([
      {
        email: 'ghost@example.com',
        kind: 'bounce',
        at: '2026-11-20T12:10:00.000Z',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <ghost@example.com>: no such user here',
        source: 'dsn',
      },
    ]);
  });

  it('takes the label given for the source', async () => {
    const { events } = await readFixture('qmail-base64.eml', { source: 'old-server' });
    expect(events[0]!.source).toBe('old-server');
  });

  it('skips an auto-reply, naming the file and message', async () => {
    const { events, skips } = await readFixture('vacation.eml');
    expect(events).toEqual([]);
    expect(skips).toEqual([{ file: evidenceFixture('vacation.eml'), where: 'message 1', why: 'an auto-reply, not a bounce' }]);
  });

  it('reads the recipient and reply of an Exim bounce, and the stage tells a refusal of the sender', async () => {
    const bounce = (stage: string, reply: string) =>
      [
        'From: Mail Delivery System <Mailer-Daemon@mx.ours.example>',
        'To: sender@ours.example',
        'Subject: Mail delivery failed: returning message to sender',
        'X-Failed-Recipients: someone@example.com',
        '',
        'A message that you sent could not be delivered to one or more of its',
        'recipients. This is a permanent error. The following address(es) failed:',
        '',
        '  someone@example.com',
        '    host mx.example.com [192.0.2.10]',
        `    SMTP error from remote mail server after ${stage}:`,
        `    ${reply}`,
        '',
      ].join('\n');
    const rcpt = await readText('rcpt.eml', bounce('RCPT TO:<someone@example.com>', '550 5.1.1 <someone@example.com>: no such user'));
    expect(rcpt.events.map(meaningOf)).toEqual(['missing-mailbox']);
    const mailFrom = await readText('mail-from.eml', bounce('MAIL FROM:<sender@ours.example>', '553 5.1.0 ours.example does not exist'));
    expect(mailFrom.events).toMatchObject([{ email: 'someone@example.com', kind: 'bounce' }]);
    expect(mailFrom.events.map(meaningOf)).toEqual(['not-about-address']);
  });

  it('reads ISO-2022-JP words sent without a charset, and quoted-printable text', async () => {
    const japanese = Buffer.concat([
      Buffer.from(
        'From: MAILER-DAEMON@example.jp\nSubject: Returned mail\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\n\n--b\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; neko@example.jp\nAction: failed\nStatus: 5.0.0\nDiagnostic-Code: X-Notes; ',
      ),
      Buffer.from('\x1b$B%G%#%l%/%H%j$K$O8+$D$+$j$^$;$s\x1b(B\n\n--b--\n', 'latin1'),
    ]);
    const { events } = await readText('domino.eml', japanese);
    expect(events[0]!.diagnostic).toContain('ディレクトリには見つかりません');
    expect(meaningOf(events[0]!)).toBe('missing-mailbox');
  });

  it('yields the same events whatever the chunk size (no line or character cut in half is lost)', async () => {
    const bytes = readFileSync(evidenceFixture('dsn-user-unknown.eml'));
    const whole = await readText('a.eml', bytes);
    const cut = await readText('a.eml', bytes, { chunk: 7 });
    expect(cut).toEqual(whole);
  });
});

describe('what the real corpus lacks', () => {
  it('reads a message with CR-only line ends (old Mac mail)', async () => {
    const cr = readFileSync(evidenceFixture('dsn-user-unknown.eml'), 'latin1').replace(/\n/g, '\r');
    const { events } = await readText('mac.eml', Buffer.from(cr, 'latin1'));
    expect(events.map((event) => [event.email, event.status])).toEqual([
      ['No.Such@example.com', '5.1.1'],
      ['full@example.net', '5.2.2'],
    ]);
  });

  it('reads an internationalised DSN (RFC 6533) with a UTF-8 address', async () => {
    const raw = [
      'From: MAILER-DAEMON@mx.ours.example',
      'Subject: Undelivered Mail Returned to Sender',
      'Content-Type: multipart/report; report-type=global-delivery-status; boundary=g',
      '',
      '--g',
      'Content-Type: message/global-delivery-status',
      '',
      'Final-Recipient: utf-8; José.Müller@Example.COM',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 no such user',
      '',
      '--g--',
      '',
    ].join('\n');
    const { events } = await readText('intl.eml', raw);
    expect(events).toMatchObject([{ email: 'José.Müller@example.com', kind: 'bounce', status: '5.1.1' }]);
  });
});
