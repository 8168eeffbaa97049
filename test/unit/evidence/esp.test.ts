// ESP exports and notifications: SES (with and without SNS, one object, NDJSON, an array), SendGrid,
// Mailgun and Postmark; the converters the webhook receivers call read the same.
import { describe, expect, it } from 'vitest';
import { mailgunEvents, postmarkBounces, sendgridEvents, sesNotification } from '../../../src/engine/evidence/esp.js';
import { meaningOf } from '../../../src/engine/evidence/meaning.js';
import { evidenceFixture, readFixture, readText } from '../../support/evidence.js';

const brief = (event: { email: string; kind: string; status?: string; source: string }) => [event.email, event.kind, event.status, event.source];

describe('ESP JSON', () => {
  it('reads an SES bounce inside its SNS envelope', async () => {
    const { events } = await readFixture('ses-sns.json');
    expect(events).toEqual([
      { email: 'gone@example.com', kind: 'bounce', at: '2026-11-20T10:40:00.000Z', status: '5.1.1', diagnostic: 'smtp; 550 5.1.1 user unknown', source: 'ses' },
    ]);
    expect(meaningOf(events[0]!)).toBe('missing-mailbox');
  });

  it('reads SES NDJSON line by line (delivery, transient bounce, complaint) and names the line that is not JSON', async () => {
    const { events, skips } = await readFixture('ses.ndjson');
    expect(events.map(brief)).toEqual([
      ['Alice@example.org', 'delivery', undefined, 'ses'],
      ['full@example.net', 'deferral', '4.2.2', 'ses'],
      ['angry@example.com', 'complaint', undefined, 'ses'],
    ]);
    expect(skips).toHaveLength(1);
    expect(skips[0]).toMatchObject({ file: evidenceFixture('ses.ndjson'), where: 'line 4' });
    expect(skips[0]!.why).toMatch(/^not JSON/);
  });

  it('reads an array of SES notifications', async () => {
    const one = { notificationType: 'Delivery', delivery: { timestamp: '2026-11-20T00:00:00Z', recipients: ['a@example.com', 'b@example.com'] } };
    const { events } = await readText('ses.json', JSON.stringify([one, { ...one, delivery: { ...one.delivery, recipients: ['c@example.com'] } }]));
    expect(events.map((event) => event.email)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it("reads SendGrid's event webhook batch and names the events it does not use", async () => {
    const { events, skips } = await readFixture('sendgrid.json');
    expect(events.map(brief)).toEqual([
      ['gone@example.com', 'bounce', '5.1.1', 'sendgrid'],
      ['yes@example.org', 'delivery', undefined, 'sendgrid'],
      ['later@example.net', 'deferral', '4.7.1', 'sendgrid'],
      ['spam@example.com', 'complaint', undefined, 'sendgrid'],
    ]);
    expect(events[0]!.at).toBe('2025-11-20T10:40:00.000Z');
    expect(skips).toEqual([{ file: evidenceFixture('sendgrid.json'), where: 'event 5', why: 'a SendGrid "open" event, not a bounce, delivery or complaint' }]);
  });

  it("reads Mailgun's events export: failed by severity, delivered", async () => {
    const { events } = await readFixture('mailgun.json');
    expect(events.map(brief)).toEqual([
      ['gone@example.com', 'bounce', '5.1.1', 'mailgun'],
      ['yes@example.org', 'delivery', undefined, 'mailgun'],
      ['later@example.net', 'deferral', '4.2.2', 'mailgun'],
    ]);
    expect(events[0]!.diagnostic).toBe('550 5.1.1 The email account that you tried to reach does not exist.');
  });

  it("reads Postmark's bounces export and skips its auto-responder records", async () => {
    const { events, skips } = await readFixture('postmark.json');
    expect(events.map(brief)).toEqual([['gone@example.com', 'bounce', '5.1.1', 'postmark']]);
    expect(meaningOf(events[0]!)).toBe('missing-mailbox');
    expect(skips).toEqual([{ file: evidenceFixture('postmark.json'), where: 'event 2', why: 'a Postmark "AutoResponder" record, not a bounce' }]);
  });

  it('gives the webhook receivers the same reading, item by item', () => {
    expect(sendgridEvents([{ email: 'x@Example.com', event: 'dropped', reason: 'Bounced Address', timestamp: 1763600000 }])).toEqual([
      { event: { email: 'x@example.com', kind: 'bounce', at: '2025-11-20T00:53:20.000Z', diagnostic: 'Bounced Address', source: 'sendgrid' } },
    ]);
    expect(sesNotification({ Type: 'Notification', Message: 'not json' })).toEqual([{ why: 'an SNS notification whose Message is not JSON' }]);
    expect(mailgunEvents({ 'event-data': { event: 'delivered', recipient: 'y@example.com', timestamp: 1763600000 } }, 'my-mailgun')).toMatchObject([
      { event: { email: 'y@example.com', kind: 'delivery', source: 'my-mailgun' } },
    ]);
    expect(postmarkBounces({ RecordType: 'Delivery', Recipient: 'z@example.com', DeliveredAt: '2026-11-20T00:00:00Z' })).toMatchObject([
      { event: { email: 'z@example.com', kind: 'delivery' } },
    ]);
    expect(sendgridEvents([{ email: 'not an address', event: 'bounce', timestamp: 1 }])).toEqual([{ why: 'no recipient address ("not an address")' }]);
  });

  it('names JSON of no format it reads', async () => {
    const { events, skips } = await readText('other.json', '{"hello": "world"}');
    expect(events).toEqual([]);
    expect(skips).toEqual([
      { file: 'other.json', where: 'file', why: 'JSON of no format evidence is read from (SES, SendGrid, Mailgun, Postmark, or {email, kind, at} events)' },
    ]);
  });
});
