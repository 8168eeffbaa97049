// Our own formats: the CSV of email,event,at[,status,diagnostic] and {email, kind, at} JSON events.
import { describe, expect, it } from 'vitest';
import { eventFromJson } from '../../../src/engine/evidence/read.js';
import { evidenceFixture, readFixture, readText } from '../../support/evidence.js';

describe('CSV and JSON events', () => {
  it('reads a CSV by its header row and names each row it cannot read', async () => {
    const { events, skips } = await readFixture('events.csv');
    expect(events).toEqual([
      {
        email: 'gone@example.com',
        kind: 'bounce',
        at: '2026-11-20T11:00:00.000Z',
        status: '5.1.1',
        diagnostic: '550 5.1.1 user unknown, sorry',
        source: 'csv',
      },
      { email: 'yes@example.org', kind: 'delivery', at: '2026-11-20T11:01:00.000Z', source: 'csv' },
      { email: 'full@example.net', kind: 'bounce', at: '2026-11-20T11:03:00.000Z', status: '5.2.2', diagnostic: '552 5.2.2 Mailbox full', source: 'csv' },
    ]);
    const file = evidenceFixture('events.csv');
    expect(skips).toEqual([
      { file, where: 'line 4', why: '"not-an-address" is not an address' },
      { file, where: 'line 5', why: 'at "yesterday" is not a time' },
    ]);
  });

  it('refuses a CSV without the columns it needs, once', async () => {
    const { events, skips } = await readText('list.csv', 'email,name\na@example.com,A\n', { contentType: 'text/csv' });
    expect(events).toEqual([]);
    expect(skips).toEqual([{ file: 'list.csv', where: 'line 1', why: 'the header row names no event, at column (email,event,at[,status,diagnostic])' }]);
  });

  it('reads {events: [...]} JSON, naming each refused event', async () => {
    const body = JSON.stringify({
      events: [
        { email: 'A@Example.com', kind: 'delivery', at: '2026-11-20T00:00:00+01:00' },
        { email: 'b@example.com', kind: 'opened', at: '2026-11-20T00:00:00Z' },
      ],
    });
    const { events, skips } = await readText('events.json', body, { source: 'crm' });
    expect(events).toEqual([{ email: 'A@example.com', kind: 'delivery', at: '2026-11-19T23:00:00.000Z', source: 'crm' }]);
    expect(skips).toEqual([{ file: 'events.json', where: 'event 2', why: 'kind must be one of bounce, delivery, complaint, deferral' }]);
  });

  it('validates one API event', () => {
    expect(
      eventFromJson({ email: ' <x@EXAMPLE.org> ', kind: 'bounce', at: '2026-11-20T10:00:00Z', status: '5.1.1', diagnostic: ' 550  user unknown ' }, 'api'),
    ).toEqual({
      email: 'x@example.org',
      kind: 'bounce',
      at: '2026-11-20T10:00:00.000Z',
      status: '5.1.1',
      diagnostic: '550 user unknown',
      source: 'api',
    });
    expect(eventFromJson({ email: 'x@example.org', kind: 'bounce', at: '2026-11-20T10:00:00Z', source: 'mine' }, 'api')).toMatchObject({ source: 'mine' });
    expect(eventFromJson('x', 'api')).toBe('an event must be an object');
    expect(eventFromJson({ email: 'nobody', kind: 'bounce', at: '2026-11-20' }, 'api')).toBe('email "nobody" is not an address');
    expect(eventFromJson({ email: 'x@example.org', kind: 'bounce', at: 'soon' }, 'api')).toBe('at "soon" is not a time (ISO 8601)');
    expect(eventFromJson({ email: 'x@example.org', kind: 'bounce', at: '2026-11-20', status: '550' }, 'api')).toBe(
      'status "550" is not an enhanced status code (like 5.1.1)',
    );
    expect(eventFromJson({ email: 'x@example.org', kind: 'bounce', at: '2026-11-20', diagnostic: 5 }, 'api')).toBe('diagnostic must be a string');
  });

  it('names a file of no format it reads, and an empty one', async () => {
    expect((await readFixture('not-evidence.txt')).skips).toEqual([
      { file: evidenceFixture('not-evidence.txt'), where: 'file', why: 'not a format evidence is read from (a mail message, mbox, MTA log, ESP JSON or CSV)' },
    ]);
    expect((await readText('empty', '  \n')).skips).toEqual([{ file: 'empty', where: 'file', why: 'empty' }]);
  });
});

describe('a CSV that breaks off', () => {
  it('keeps what came before a quote never closed and names where it broke', async () => {
    const { events, skips } = await readText(
      'broken.csv',
      'email,event,at\na@example.com,bounce,2026-11-20T00:00:00Z\n"b@example.com,bounce,2026-11-20T00:00:00Z\n',
    );
    expect(events.map((event) => event.email)).toEqual(['a@example.com']);
    expect(skips).toHaveLength(1);
    expect(skips[0]!.why).toMatch(/^not CSV: /);
  });
});
