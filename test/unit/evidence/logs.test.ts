// MTA logs read line by line: Postfix, Exim and Sendmail delivery lines, other lines passed over.
import { describe, expect, it } from 'vitest';
import { meaningOf } from '../../../src/engine/evidence/meaning.js';
import { syslogTime } from '../../../src/engine/evidence/logs.js';
import { evidenceFixture, readFixture } from '../../support/evidence.js';

const brief = (event: { email: string; kind: string; status?: string }) => [event.email, event.kind, event.status];

describe('MTA logs', () => {
  it('reads Postfix bounced, sent and deferred lines with the remote words, and names a line it cannot read', async () => {
    const { events, skips } = await readFixture('postfix.log');
    expect(events.map(brief)).toEqual([
      ['Gone.User@example.com', 'bounce', '5.1.1'],
      ['happy@example.org', 'delivery', '2.0.0'],
      ['full@example.net', 'deferral', '4.2.2'],
      ['blocked@example.net', 'bounce', '5.7.1'],
    ]);
    expect(events[0]!.diagnostic).toBe('550 5.1.1 <Gone.User@example.com>: Recipient address rejected: User unknown in virtual mailbox table');
    expect(events[0]!.at).toMatch(/^\d{4}-11-20T10:15:01\.000Z$/);
    expect(events.map(meaningOf)).toEqual(['missing-mailbox', 'delivered', 'soft', 'not-about-address']);
    expect(skips).toEqual([{ file: evidenceFixture('postfix.log'), where: 'line 6', why: 'a delivery line without a recipient address or a time' }]);
  });

  it("reads Exim's ** => and == lines; a refusal at MAIL FROM is not about the address", async () => {
    const { events, skips } = await readFixture('exim-mainlog');
    expect(skips).toEqual([]);
    expect(events.map(brief)).toEqual([
      ['nobody@example.com', 'bounce', '5.1.1'],
      ['someone@example.org', 'delivery', undefined],
      ['later@example.net', 'deferral', '4.7.1'],
      ['sender-refused@example.net', 'bounce', '5.7.1'],
    ]);
    expect(events[0]!.at).toBe('2026-11-20T10:20:01.000Z');
    expect(events.map(meaningOf)).toEqual(['missing-mailbox', 'delivered', 'soft', 'not-about-address']);
  });

  it('reads Sendmail stat= lines, every recipient of a line', async () => {
    const { events } = await readFixture('sendmail-maillog');
    expect(events.map(brief)).toEqual([
      ['unknown@example.com', 'bounce', '5.1.1'],
      ['ok@example.org', 'delivery', '2.0.0'],
      ['ok2@example.org', 'delivery', '2.0.0'],
      ['slow@example.net', 'deferral', '4.0.0'],
    ]);
    expect(meaningOf(events[0]!)).toBe('missing-mailbox');
  });

  it('dates a classic syslog line in the latest year that is not in the future', () => {
    const now = new Date('2026-01-05T00:00:00Z');
    expect(syslogTime('Jan  4 23:00:00 host x', now)).toBe('2026-01-04T23:00:00.000Z');
    expect(syslogTime('Dec 31 23:00:00 host x', now)).toBe('2025-12-31T23:00:00.000Z');
    expect(syslogTime('2026-01-04T10:00:00.5+01:00 host x', now)).toBe('2026-01-04T09:00:00.500Z');
  });
});
